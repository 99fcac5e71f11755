"""ProgramDesc and BlockDesc: a legacy static-graph program, in memory and as protobuf bytes.

A ProgramDesc wraps one ``proto::ProgramDesc`` message (as Paddle's C++ class does); blocks,
variables and ops wrap the sub-messages and write every change through.  Hence
``ProgramDesc.parse_from_string(data).serialize_to_string() == data`` for every file Paddle
wrote, and serializing costs one protobuf call.

Parsing decodes and checks the whole program at once (names, slots, attributes, var types,
block references), so that a corrupt file fails in ``parse_from_string`` with one
ProgramFileError and never later, half-way through a run.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from google.protobuf.message import DecodeError, EncodeError

from fluid_compat.framework.enums import (
    CURRENT_PROGRAM_VERSION,
    NO_BLOCK_IDX,
    ROOT_BLOCK_IDX,
    AttrType,
)
from fluid_compat.framework.errors import ProgramFileError
from fluid_compat.framework.op_desc import OpDesc
from fluid_compat.framework.proto import messages as pb
from fluid_compat.framework.var_desc import VarDesc
from phi.core.errors import AlreadyExists, InvalidArgument, NotFound, PreconditionNotMet

__all__ = ["BlockDesc", "ProgramDesc"]


class BlockDesc:
    """One block: ``idx``, ``parent_idx``, ordered ``vars`` (name -> VarDesc) and ``ops``.

    Block 0 is the global block (parent -1); control-flow ops refer to their sub-blocks through
    BLOCK attributes.
    """

    __slots__ = ("_ops", "_program", "_proto", "_vars")

    def __init__(self, program: ProgramDesc, proto: pb.BlockDesc) -> None:
        self._program = program
        self._proto = proto
        self._vars: dict[str, VarDesc] = {}
        self._ops: list[OpDesc] = []

    @classmethod
    def _from_proto(cls, program: ProgramDesc, proto: pb.BlockDesc) -> BlockDesc:
        self = cls(program, proto)
        for i, v in enumerate(proto.vars):
            try:
                var = VarDesc._from_proto(v, self)
            except ValueError as e:
                raise ValueError(f"block {proto.idx}, var #{i}: {e}") from None
            if var.name in self._vars:
                raise ValueError(f"block {proto.idx}: variable '{var.name}' is declared twice")
            self._vars[var.name] = var
        for i, o in enumerate(proto.ops):
            try:
                self._ops.append(OpDesc._from_proto(o, self))
            except ValueError as e:
                raise ValueError(f"block {proto.idx}, op #{i} ('{o.type}'): {e}") from None
        return self

    # -- identity ------------------------------------------------------------------------------
    @property
    def idx(self) -> int:
        return self._proto.idx

    @property
    def parent_idx(self) -> int:
        return self._proto.parent_idx

    @property
    def forward_block_idx(self) -> int:
        """The forward block of a backward block; -1 when none."""
        return self._proto.forward_block_idx

    @forward_block_idx.setter
    def forward_block_idx(self, idx: int) -> None:
        self._proto.forward_block_idx = idx

    @property
    def program(self) -> ProgramDesc:
        return self._program

    @property
    def parent(self) -> BlockDesc | None:
        p = self.parent_idx
        return None if p == NO_BLOCK_IDX else self._program.block(p)

    @property
    def proto(self) -> pb.BlockDesc:
        """The backing protobuf message (change it only through this class)."""
        return self._proto

    def __repr__(self) -> str:
        return (
            f"BlockDesc(idx={self.idx}, parent={self.parent_idx}, "
            f"{len(self._vars)} vars, {len(self._ops)} ops)"
        )

    # -- variables -----------------------------------------------------------------------------
    @property
    def vars(self) -> Mapping[str, VarDesc]:
        """Variable name -> VarDesc, in declaration order."""
        return MappingProxyType(self._vars)

    def has_var(self, name: str) -> bool:
        return name in self._vars

    def find_var(self, name: str) -> VarDesc | None:
        return self._vars.get(name)

    def var(self, name: str) -> VarDesc:
        """The VarDesc declared in this block; NotFound otherwise."""
        try:
            return self._vars[name]
        except KeyError:
            raise NotFound(f"block {self.idx} declares no variable '{name}'") from None

    def find_var_recursive(self, name: str) -> VarDesc | None:
        """This block's variable, else the nearest ancestor block's, else None."""
        block: BlockDesc | None = self
        while block is not None:
            found = block._vars.get(name)
            if found is not None:
                return found
            block = block.parent
        return None

    def create_var(self, name: str, **fields: object) -> VarDesc:
        """Declare a new variable (keyword fields as in ``VarDesc(...)``)."""
        return self.add_var(VarDesc(name, **fields))  # type: ignore[arg-type]

    def add_var(self, var: VarDesc) -> VarDesc:
        """Adopt a standalone VarDesc (it then belongs to, and writes through to, this block)."""
        if var._block is not None:
            raise InvalidArgument(
                f"variable '{var.name}' already belongs to block {var._block.idx}"
            )
        if var.name in self._vars:
            raise AlreadyExists(f"block {self.idx} already declares variable '{var.name}'")
        self._proto.vars.append(var._proto)  # copies
        var._proto = self._proto.vars[-1]
        var._block = self
        self._vars[var.name] = var
        return var

    def remove_var(self, name: str) -> None:
        """Remove a declaration (ops that use the name are left as they are); the VarDesc
        object becomes standalone."""
        var = self.var(name)
        detached = pb.VarDesc()
        detached.CopyFrom(var._proto)
        for i, v in enumerate(self._proto.vars):
            if v.name == name:
                del self._proto.vars[i]
                break
        del self._vars[name]
        var._proto = detached
        var._block = None

    # -- operators -----------------------------------------------------------------------------
    @property
    def ops(self) -> tuple[OpDesc, ...]:
        """The ops in execution order."""
        return tuple(self._ops)

    @property
    def num_ops(self) -> int:
        return len(self._ops)

    def op(self, index: int) -> OpDesc:
        return self._ops[index]

    def append_op(
        self,
        op: str | OpDesc,
        inputs: Mapping[str, Sequence[str]] | None = None,
        outputs: Mapping[str, Sequence[str]] | None = None,
        attrs: Mapping[str, object] | None = None,
        attr_types: Mapping[str, AttrType] | None = None,
    ) -> OpDesc:
        """Append an op given by type (and slots, attributes) or a standalone OpDesc."""
        return self.insert_op(len(self._ops), op, inputs, outputs, attrs, attr_types)

    def insert_op(
        self,
        index: int,
        op: str | OpDesc,
        inputs: Mapping[str, Sequence[str]] | None = None,
        outputs: Mapping[str, Sequence[str]] | None = None,
        attrs: Mapping[str, object] | None = None,
        attr_types: Mapping[str, AttrType] | None = None,
    ) -> OpDesc:
        """Insert an op before position ``index`` (0 <= index <= num_ops)."""
        if not 0 <= index <= len(self._ops):
            raise InvalidArgument(
                f"block {self.idx}: op index {index} out of [0, {len(self._ops)}]"
            )
        if isinstance(op, OpDesc):
            if inputs or outputs or attrs or attr_types:
                raise InvalidArgument("give either an OpDesc or a type with slots and attrs")
            if op._block is not None:
                raise InvalidArgument(f"{op!r} already belongs to block {op._block.idx}")
            desc = op
        else:
            desc = OpDesc(op, inputs, outputs, attrs, attr_types)
        self._proto.ops.insert(index, desc._proto)  # copies
        desc._proto = self._proto.ops[index]
        desc._block = self
        self._ops.insert(index, desc)
        return desc

    def remove_op(self, index: int) -> OpDesc:
        """Remove and return the op at ``index`` (it becomes standalone)."""
        n = len(self._ops)
        if not -n <= index < n:
            raise InvalidArgument(f"block {self.idx}: no op at index {index} ({n} ops)")
        index %= n
        desc = self._ops.pop(index)
        detached = pb.OpDesc()
        detached.CopyFrom(desc._proto)
        del self._proto.ops[index]
        desc._proto = detached
        desc._block = None
        return desc


class ProgramDesc:
    """A program: ``blocks`` (block 0 global), ``version``, ``op_version_map``.

    ``ProgramDesc()`` makes an empty program with block 0, as Paddle's does;
    ``ProgramDesc.parse_from_string(data)`` / ``ProgramDesc.load(path)`` read a ``.pdmodel`` /
    ``__model__``; ``serialize_to_string()`` / ``save(path)`` write one.
    """

    __slots__ = ("_blocks", "_op_versions", "_proto")

    def __init__(self) -> None:
        self._proto = pb.ProgramDesc()
        self._proto.version.version = CURRENT_PROGRAM_VERSION
        self._blocks: list[BlockDesc] = []
        self._op_versions: dict[str, int] = {}
        root = self._proto.blocks.add(idx=ROOT_BLOCK_IDX, parent_idx=NO_BLOCK_IDX)
        self._blocks.append(BlockDesc(self, root))

    # -- reading and writing -------------------------------------------------------------------
    @classmethod
    def parse_from_string(cls, data: bytes, *, source: str | None = None) -> ProgramDesc:
        """Parse a serialized ProgramDesc.  Raises ProgramFileError (naming ``source``, the file
        the bytes came from, when given) for bytes that are not a valid program."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise InvalidArgument(f"parse_from_string expects bytes, got {type(data).__name__}")
        proto = pb.ProgramDesc()
        try:
            proto.ParseFromString(bytes(data))
        except (DecodeError, RuntimeError, ValueError) as e:
            raise ProgramFileError(
                f"not a valid serialized ProgramDesc ({len(data)} bytes): {_short(e)}", path=source
            ) from None
        if not proto.IsInitialized():  # Python's protobuf parses without this check
            missing = proto.FindInitializationErrors()
            raise ProgramFileError(
                f"not a valid serialized ProgramDesc ({len(data)} bytes): required fields are "
                f"missing: {', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}",
                path=source,
            )
        self = cls.__new__(cls)
        self._proto = proto
        try:
            self._decode()
        except ValueError as e:
            raise ProgramFileError(f"invalid ProgramDesc: {e}", path=source) from None
        return self

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> ProgramDesc:
        """Read a ``.pdmodel`` / ``__model__`` file."""
        name = os.fspath(path)
        try:
            with open(name, "rb") as f:
                data = f.read()
        except OSError as e:
            raise NotFound(f"cannot read program file '{name}': {e.strerror}") from None
        return cls.parse_from_string(data, source=name)

    def serialize_to_string(self) -> bytes:
        """The protobuf bytes of the program (what ``.pdmodel`` holds)."""
        try:
            return self._proto.SerializeToString()
        except EncodeError:
            missing = self._proto.FindInitializationErrors()
            raise PreconditionNotMet(
                f"the program is incomplete and cannot be serialized; unset required fields: "
                f"{', '.join(missing[:10])}{' ...' if len(missing) > 10 else ''}"
            ) from None

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the program to a file (``.pdmodel``)."""
        data = self.serialize_to_string()
        with open(os.fspath(path), "wb") as f:
            f.write(data)

    def clone(self) -> ProgramDesc:
        """A deep copy."""
        return ProgramDesc.parse_from_string(self.serialize_to_string())

    def _decode(self) -> None:
        proto = self._proto
        n = len(proto.blocks)
        if n == 0:
            raise ValueError("the program has no block")
        self._blocks = []
        for i, b in enumerate(proto.blocks):
            if b.idx != i:
                raise ValueError(f"block #{i} says its index is {b.idx}")
            if i == 0 and b.parent_idx != NO_BLOCK_IDX:
                raise ValueError(f"block 0 has parent {b.parent_idx}, expected -1")
            if i > 0 and not 0 <= b.parent_idx < i:
                raise ValueError(f"block {i} has parent {b.parent_idx}, not a block before it")
            self._blocks.append(BlockDesc._from_proto(self, b))
        for block in self._blocks:
            for k, op in enumerate(block._ops):
                for name, t in op._attr_types.items():
                    if t == AttrType.BLOCK:
                        refs: tuple[int, ...] = (op._attrs[name],)  # type: ignore[assignment]
                    elif t == AttrType.BLOCKS:
                        refs = op._attrs[name]  # type: ignore[assignment]
                    else:
                        continue
                    bad = [r for r in refs if not 0 <= r < n]
                    if bad:
                        raise ValueError(
                            f"block {block.idx}, op #{k} ('{op.type}'): attribute '{name}' "
                            f"refers to block {bad[0]}, but the program has {n} blocks"
                        )
        versions: dict[str, int] = {}
        for pair in proto.op_version_map.pair:
            if type(pair.op_name) is not str:
                raise ValueError("an op name in op_version_map is not valid UTF-8")
            versions[pair.op_name] = pair.op_version.version
        self._op_versions = versions

    # -- blocks --------------------------------------------------------------------------------
    @property
    def blocks(self) -> tuple[BlockDesc, ...]:
        return tuple(self._blocks)

    @property
    def num_blocks(self) -> int:
        return len(self._blocks)

    def block(self, idx: int) -> BlockDesc:
        if not 0 <= idx < len(self._blocks):
            raise NotFound(f"the program has no block {idx} (it has {len(self._blocks)})")
        return self._blocks[idx]

    @property
    def global_block(self) -> BlockDesc:
        return self._blocks[ROOT_BLOCK_IDX]

    def append_block(self, parent: BlockDesc | int) -> BlockDesc:
        """A new, empty block whose parent is ``parent`` (for control-flow sub-blocks)."""
        parent_idx = parent.idx if isinstance(parent, BlockDesc) else parent
        self.block(parent_idx)  # exists?
        proto = self._proto.blocks.add(idx=len(self._blocks), parent_idx=parent_idx)
        block = BlockDesc(self, proto)
        self._blocks.append(block)
        return block

    # -- versions ------------------------------------------------------------------------------
    @property
    def version(self) -> int:
        """major * 10^6 + minor * 10^3 + patch of the writer (0 when the file has none)."""
        return self._proto.version.version

    @version.setter
    def version(self, value: int) -> None:
        self._proto.version.version = value

    @property
    def op_version_map(self) -> Mapping[str, int]:
        """Op type -> version of its definition that the program was written with."""
        return MappingProxyType(self._op_versions)

    def set_op_version(self, op_type: str, version: int) -> None:
        for pair in self._proto.op_version_map.pair:
            if pair.op_name == op_type:
                pair.op_version.version = version
                break
        else:
            self._proto.op_version_map.pair.add(op_name=op_type).op_version.version = version
        self._op_versions[op_type] = version

    @property
    def proto(self) -> pb.ProgramDesc:
        """The backing protobuf message (change it only through these classes)."""
        return self._proto

    def __repr__(self) -> str:
        ops = sum(len(b._ops) for b in self._blocks)
        return f"ProgramDesc(version={self.version}, {len(self._blocks)} blocks, {ops} ops)"


def _short(e: BaseException) -> str:
    text = str(e) or type(e).__name__
    return text if len(text) <= 200 else text[:200] + " ..."
