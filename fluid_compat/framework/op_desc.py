"""OpDesc: one operator of a block (type, input/output slots, attributes).

Like Paddle's C++ ``OpDesc``, an OpDesc wraps its protobuf message (``proto::OpDesc``), which is
the backing store: every change is written through at once, so serializing never re-encodes an
unchanged operator and a parsed file comes back byte for byte.  The Python view (slots and
attribute values) is decoded once, when the op is read, and cached: reading ``op.attrs`` or
``op.attr(name)`` is a dict lookup.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

from fluid_compat.framework.attribute import AttrValue, decode_attr, encode_attr, infer_attr_type
from fluid_compat.framework.enums import AttrType
from fluid_compat.framework.proto import messages as pb
from phi.core.errors import InvalidArgument, NotFound

if TYPE_CHECKING:
    from fluid_compat.framework.program_desc import BlockDesc

__all__ = ["OpDesc"]


def _names(values: Iterable[object], what: str) -> tuple[str, ...]:
    out = tuple(values)
    for v in out:
        if type(v) is not str:
            raise ValueError(f"{what} is not valid UTF-8")
    return out


def _decode_slots(vars_: Sequence[pb.OpDesc.Var], what: str) -> dict[str, tuple[str, ...]]:
    slots: dict[str, tuple[str, ...]] = {}
    for v in vars_:
        slot = v.parameter
        if type(slot) is not str:
            raise ValueError(f"an {what} slot name is not valid UTF-8")
        if slot in slots:
            raise ValueError(f"{what} slot '{slot}' appears twice")
        slots[slot] = _names(v.arguments, f"an argument of {what} slot '{slot}'")
    return slots


class OpDesc:
    """An operator description: ``type``, ordered ``inputs``/``outputs`` (slot -> variable
    names; slots without arguments are kept) and ``attrs`` (name -> Python value, see
    :mod:`fluid_compat.framework.attribute`).

    ``inputs``, ``outputs`` and ``attrs`` are read-only views with tuple values; change them with
    ``set_input``/``set_output``/``set_attr``/``remove_attr``/``rename_*``.

    Build one standalone with ``OpDesc("relu", {"X": ["x"]}, {"Out": ["y"]}, {...})`` and add it
    with ``BlockDesc.append_op``, or directly with ``block.append_op("relu", ...)``.
    """

    __slots__ = ("_attr_types", "_attrs", "_block", "_inputs", "_outputs", "_proto")

    def __init__(
        self,
        type: str = "",
        inputs: Mapping[str, Sequence[str]] | None = None,
        outputs: Mapping[str, Sequence[str]] | None = None,
        attrs: Mapping[str, object] | None = None,
        attr_types: Mapping[str, AttrType] | None = None,
    ) -> None:
        self._proto = pb.OpDesc()
        self._block: BlockDesc | None = None
        self._inputs: dict[str, tuple[str, ...]] = {}
        self._outputs: dict[str, tuple[str, ...]] = {}
        self._attrs: dict[str, AttrValue] = {}
        self._attr_types: dict[str, AttrType] = {}
        self.type = type
        for slot, names in (inputs or {}).items():
            self.set_input(slot, names)
        for slot, names in (outputs or {}).items():
            self.set_output(slot, names)
        types_ = attr_types or {}
        for name, value in (attrs or {}).items():
            self.set_attr(name, value, types_.get(name))
        for name in types_:
            if name not in self._attrs:
                raise InvalidArgument(f"op '{type}': attr_types names '{name}', not in attrs")

    @classmethod
    def _from_proto(cls, proto: pb.OpDesc, block: BlockDesc | None) -> OpDesc:
        """Wrap a parsed message and decode it once.  Raises ValueError for content protobuf
        accepted but that no valid program holds (the caller adds the location)."""
        self = cls.__new__(cls)
        self._proto = proto
        self._block = block
        if type(proto.type) is not str:
            raise ValueError("the op type is not valid UTF-8")
        self._inputs = _decode_slots(proto.inputs, "input")
        self._outputs = _decode_slots(proto.outputs, "output")
        attrs: dict[str, AttrValue] = {}
        types_: dict[str, AttrType] = {}
        for a in proto.attrs:
            # Paddle 2.6.2 writes some runtime attributes twice (seen in the corpus): as its
            # C++ reader does, the last one wins
            name, t, value = decode_attr(a)
            attrs[name] = value
            types_[name] = t
        self._attrs = attrs
        self._attr_types = types_
        return self

    # -- identity ------------------------------------------------------------------------------
    @property
    def type(self) -> str:
        return self._proto.type

    @type.setter
    def type(self, value: str) -> None:
        if not isinstance(value, str):
            raise InvalidArgument(f"an op type must be a str, got {value!r}")
        self._proto.type = value

    @property
    def block(self) -> BlockDesc | None:
        """The block holding this op (None while standalone)."""
        return self._block

    @property
    def is_target(self) -> bool:
        return self._proto.is_target

    def __repr__(self) -> str:
        ins = ", ".join(f"{k}={list(v)}" for k, v in self._inputs.items())
        outs = ", ".join(f"{k}={list(v)}" for k, v in self._outputs.items())
        return f"OpDesc({self.type}: {ins} -> {outs})"

    # -- slots ---------------------------------------------------------------------------------
    @property
    def inputs(self) -> Mapping[str, tuple[str, ...]]:
        """Input slot -> variable names, in file order."""
        return MappingProxyType(self._inputs)

    @property
    def outputs(self) -> Mapping[str, tuple[str, ...]]:
        """Output slot -> variable names, in file order."""
        return MappingProxyType(self._outputs)

    def input(self, slot: str) -> tuple[str, ...]:
        """Variable names of an input slot; NotFound when the op has no such slot."""
        try:
            return self._inputs[slot]
        except KeyError:
            raise NotFound(
                f"op '{self.type}' has no input slot '{slot}'; it has {list(self._inputs)}"
            ) from None

    def output(self, slot: str) -> tuple[str, ...]:
        """Variable names of an output slot; NotFound when the op has no such slot."""
        try:
            return self._outputs[slot]
        except KeyError:
            raise NotFound(
                f"op '{self.type}' has no output slot '{slot}'; it has {list(self._outputs)}"
            ) from None

    def input_arg_names(self, with_attr_var: bool = False) -> list[str]:
        """Every input variable name, slot by slot; with ``with_attr_var`` also the variables
        that VAR / VARS attributes name (Paddle's InputArgumentNames(with_attr_var): the
        operator reads them as inputs of the attribute's name)."""
        names = [n for names in self._inputs.values() for n in names]
        if with_attr_var:
            for name, value in self._attrs.items():
                t = self._attr_types[name]
                if t == AttrType.VAR:
                    names.append(value.name)  # type: ignore[attr-defined]
                elif t == AttrType.VARS:
                    names.extend(v.name for v in value)  # type: ignore[attr-defined]
        return names

    def output_arg_names(self) -> list[str]:
        """Every output variable name, slot by slot."""
        return [n for names in self._outputs.values() for n in names]

    def set_input(self, slot: str, names: Sequence[str]) -> None:
        """Bind ``names`` (possibly none) to an input slot, replacing what it held."""
        _set_slot(self._proto.inputs, self._inputs, slot, names, self.type)

    def set_output(self, slot: str, names: Sequence[str]) -> None:
        """Bind ``names`` (possibly none) to an output slot, replacing what it held."""
        _set_slot(self._proto.outputs, self._outputs, slot, names, self.type)

    def remove_input(self, slot: str) -> None:
        _remove_slot(self._proto.inputs, self._inputs, slot)

    def remove_output(self, slot: str) -> None:
        _remove_slot(self._proto.outputs, self._outputs, slot)

    def rename_input(self, old: str, new: str) -> None:
        """Replace variable ``old`` by ``new`` in every input slot."""
        for slot, names in list(self._inputs.items()):
            if old in names:
                self.set_input(slot, [new if n == old else n for n in names])

    def rename_output(self, old: str, new: str) -> None:
        """Replace variable ``old`` by ``new`` in every output slot."""
        for slot, names in list(self._outputs.items()):
            if old in names:
                self.set_output(slot, [new if n == old else n for n in names])

    # -- attributes ----------------------------------------------------------------------------
    @property
    def attrs(self) -> Mapping[str, AttrValue]:
        """Attribute name -> Python value, in file order (decoded once, then cached)."""
        return MappingProxyType(self._attrs)

    def has_attr(self, name: str) -> bool:
        return name in self._attrs

    def attr(self, name: str) -> AttrValue:
        """The value of an attribute; NotFound naming the attributes the op has."""
        try:
            return self._attrs[name]
        except KeyError:
            raise NotFound(
                f"op '{self.type}' has no attribute '{name}'; it has {sorted(self._attrs)}"
            ) from None

    def attr_type(self, name: str) -> AttrType:
        """The AttrType of an attribute (an IntEnum: its value is the protobuf number)."""
        try:
            return self._attr_types[name]
        except KeyError:
            raise NotFound(f"op '{self.type}' has no attribute '{name}'") from None

    def set_attr(self, name: str, value: object, attr_type: AttrType | int | None = None) -> None:
        """Set (or replace, keeping its position) an attribute.

        Without ``attr_type`` an existing attribute keeps its type when the value fits it (an
        empty list stays STRINGS ...); otherwise the type is inferred from the value (int ->
        INT or LONG, float -> FLOAT, a VarRef / list of VarRefs -> VAR / VARS ...).  BLOCK(S)
        and FLOAT64(S) must be asked for, and VAR / VARS when the value is a str.
        """
        if not isinstance(name, str):
            raise InvalidArgument(f"op '{self.type}': an attribute name must be a str")
        scratch = pb.OpDesc.Attr()
        try:
            if attr_type is None:
                old = self._attr_types.get(name)
                try:
                    if old is None:
                        raise InvalidArgument("no previous type")
                    t, stored = old, encode_attr(scratch, name, old, value)
                except InvalidArgument:
                    scratch.Clear()
                    t = infer_attr_type(value)
                    stored = encode_attr(scratch, name, t, value)
            else:
                t = AttrType(attr_type)
                stored = encode_attr(scratch, name, t, value)
        except (InvalidArgument, ValueError) as e:
            msg = e.message if isinstance(e, InvalidArgument) else str(e)
            raise InvalidArgument(f"op '{self.type}', attribute '{name}': {msg}") from None
        attrs = self._proto.attrs
        if name in self._attrs:
            where = [i for i, a in enumerate(attrs) if a.name == name]
            attrs[where[0]].CopyFrom(scratch)
            for i in reversed(where[1:]):  # duplicates written by Paddle
                del attrs[i]
        else:
            attrs.append(scratch)
        self._attrs[name] = stored
        self._attr_types[name] = t

    def remove_attr(self, name: str) -> None:
        """Remove an attribute (no error when absent, as Paddle's RemoveAttr)."""
        if name not in self._attrs:
            return
        attrs = self._proto.attrs
        for i in reversed([i for i, a in enumerate(attrs) if a.name == name]):
            del attrs[i]
        del self._attrs[name]
        del self._attr_types[name]

    def block_attr_id(self, name: str) -> int:
        """Index of the block a BLOCK attribute refers to (e.g. ``sub_block``)."""
        if self.attr_type(name) != AttrType.BLOCK:
            raise InvalidArgument(
                f"op '{self.type}', attribute '{name}' is {self.attr_type(name).name}, not BLOCK"
            )
        return self._attrs[name]  # type: ignore[return-value]

    # -- protobuf ------------------------------------------------------------------------------
    @property
    def proto(self) -> pb.OpDesc:
        """The backing protobuf message.  Change it only through this class, or the cached view
        goes stale."""
        return self._proto


def _set_slot(
    vars_: Sequence[pb.OpDesc.Var],
    cache: dict[str, tuple[str, ...]],
    slot: str,
    names: Sequence[str],
    op_type: str,
) -> None:
    if isinstance(names, str):
        raise InvalidArgument(
            f"op '{op_type}', slot '{slot}': give a list of variable names, not the str {names!r}"
        )
    values = tuple(names)
    if not isinstance(slot, str) or not all(isinstance(n, str) for n in values):
        raise InvalidArgument(f"op '{op_type}', slot '{slot}': names must be str, got {names!r}")
    if slot in cache:
        for v in vars_:
            if v.parameter == slot:
                del v.arguments[:]
                v.arguments.extend(values)
                break
    else:
        vars_.add(parameter=slot, arguments=values)  # type: ignore[attr-defined]
    cache[slot] = values


def _remove_slot(
    vars_: Sequence[pb.OpDesc.Var], cache: dict[str, tuple[str, ...]], slot: str
) -> None:
    if slot not in cache:
        return
    for i, v in enumerate(vars_):
        if v.parameter == slot:
            del vars_[i]  # type: ignore[attr-defined]
            break
    del cache[slot]
