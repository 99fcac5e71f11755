"""VarDesc: the compile-time description of one variable of a block.

Wraps its protobuf message (``proto::VarDesc``) as the backing store, like OpDesc: fields are
decoded once and cached; setters write through.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

from fluid_compat.framework.enums import TENSOR_DESC_VAR_TYPES, AttrType, VarType
from fluid_compat.framework.proto import messages as pb
from phi.common import DataType
from phi.core.errors import InvalidArgument

if TYPE_CHECKING:
    from fluid_compat.framework.program_desc import BlockDesc

__all__ = ["VarDesc"]

_INT64 = (-(2**63), 2**63 - 1)
_LOD_LEVEL_TYPES = (VarType.LOD_TENSOR, VarType.LOD_TENSOR_ARRAY)
# kinds whose TensorDesc must hold a phi data type (the others may hold e.g. PSTRING)
_NUMERIC_TENSOR_TYPES = (VarType.LOD_TENSOR, VarType.SELECTED_ROWS, VarType.LOD_TENSOR_ARRAY)


class VarDesc:
    """A variable: ``name``, ``type`` (VarType kind), and for tensor kinds ``dtype`` (phi
    DataType), ``shape`` (dims, -1 = unknown until run time) and ``lod_level``; flags
    ``persistable``, ``need_check_feed``, ``stop_gradient``, ``is_parameter``.

    ``dtype`` and ``shape`` are None for kinds without a TensorDesc (FEED_MINIBATCH,
    FETCH_LIST, ...) and for a tensor variable whose TensorDesc was never set.
    """

    __slots__ = ("_attrs", "_block", "_dtype", "_proto", "_shape", "_type")

    def __init__(
        self,
        name: str,
        type: VarType | int = VarType.LOD_TENSOR,
        dtype: DataType | object | None = None,
        shape: Sequence[int] | None = None,
        lod_level: int | None = None,
        persistable: bool | None = None,
        need_check_feed: bool | None = None,
        stop_gradient: bool | None = None,
        is_parameter: bool | None = None,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise InvalidArgument(f"a variable name must be a non-empty str, got {name!r}")
        self._proto = pb.VarDesc(name=name)
        self._block: BlockDesc | None = None
        self._dtype: DataType | None = None
        self._shape: tuple[int, ...] | None = None
        self._attrs: dict[str, object] = {}
        try:
            kind = VarType(type)
        except ValueError:
            raise InvalidArgument(f"variable '{name}': {type!r} is not a VarType") from None
        self._proto.type.type = int(kind)
        self._type = kind
        if dtype is not None:
            self.dtype = dtype  # type: ignore[assignment]
        if shape is not None:
            self.shape = shape  # type: ignore[assignment]
        if lod_level is not None:
            self.lod_level = lod_level
        for flag, value in (
            ("persistable", persistable),
            ("need_check_feed", need_check_feed),
            ("stop_gradient", stop_gradient),
            ("is_parameter", is_parameter),
        ):
            if value is not None:
                setattr(self, flag, value)

    @classmethod
    def _from_proto(cls, proto: pb.VarDesc, block: BlockDesc | None) -> VarDesc:
        """Wrap a parsed message and decode it once; ValueError for impossible content."""
        self = cls.__new__(cls)
        self._proto = proto
        self._block = block
        if type(proto.name) is not str:
            raise ValueError("a variable name is not valid UTF-8")
        self._type = VarType(proto.type.type)
        self._dtype = None
        self._shape = None
        tensor = self._tensor_desc(create=False)
        if tensor is not None:
            self._shape = tuple(tensor.dims)
            if self._type in _NUMERIC_TENSOR_TYPES:
                try:
                    self._dtype = DataType.from_proto(tensor.data_type)
                except InvalidArgument:
                    raise ValueError(
                        f"variable '{proto.name}' ({self._type.name}) has data type "
                        f"{_proto_name(tensor.data_type)}, which is not a tensor element type"
                    ) from None
        attrs: dict[str, object] = {}
        for a in proto.attrs:
            if type(a.name) is not str or type(a.s) is not str:
                raise ValueError(f"an attribute of variable '{proto.name}' is not valid UTF-8")
            attrs[a.name] = (
                a.i
                if a.type == AttrType.INT
                else a.s
                if a.type == AttrType.STRING
                else tuple(a.ints)
                if a.type == AttrType.INTS
                else None
            )
        self._attrs = attrs
        return self

    def _tensor_desc(self, create: bool) -> pb.VarType.TensorDesc | None:
        field = TENSOR_DESC_VAR_TYPES.get(self._type)
        if field is None:
            if create:
                raise InvalidArgument(
                    f"variable '{self.name}' is a {self._type.name}, which has no dtype or shape"
                )
            return None
        vt = self._proto.type
        if not create and not vt.HasField(field):
            return None
        holder = getattr(vt, field)
        if self._type in _LOD_LEVEL_TYPES:
            if not create and not holder.HasField("tensor"):
                return None
            return holder.tensor
        return holder

    # -- fields --------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._proto.name

    @property
    def block(self) -> BlockDesc | None:
        return self._block

    @property
    def type(self) -> VarType:
        return self._type

    @property
    def dtype(self) -> DataType | None:
        """Element type (phi DataType) of a tensor-like variable; None when not set."""
        return self._dtype

    @dtype.setter
    def dtype(self, value: DataType | object) -> None:
        dt = DataType.from_any(value)
        tensor = self._tensor_desc(create=True)
        assert tensor is not None
        tensor.data_type = int(dt.to_proto())
        self._dtype = dt

    @property
    def proto_dtype(self) -> int | None:
        """The TensorDesc's data type as stored (protobuf VarType.Type number), or None."""
        tensor = self._tensor_desc(create=False)
        return None if tensor is None or not tensor.HasField("data_type") else tensor.data_type

    @property
    def shape(self) -> tuple[int, ...] | None:
        """Dims (-1 = unknown); () is a 0-d tensor; None when no TensorDesc is set."""
        return self._shape

    @shape.setter
    def shape(self, dims: Sequence[int]) -> None:
        values = tuple(dims)
        for d in values:
            if isinstance(d, bool) or not isinstance(d, int) or not _INT64[0] <= d <= _INT64[1]:
                raise InvalidArgument(f"variable '{self.name}': bad dims {list(values)}")
        if self.proto_dtype is None:
            raise InvalidArgument(
                f"variable '{self.name}': set dtype before shape (a TensorDesc needs both)"
            )
        tensor = self._tensor_desc(create=True)
        assert tensor is not None
        del tensor.dims[:]
        tensor.dims.extend(values)
        self._shape = values

    @property
    def lod_level(self) -> int:
        if self._type not in _LOD_LEVEL_TYPES:
            return 0
        return getattr(self._proto.type, TENSOR_DESC_VAR_TYPES[self._type]).lod_level

    @lod_level.setter
    def lod_level(self, level: int) -> None:
        if self._type not in _LOD_LEVEL_TYPES:
            raise InvalidArgument(
                f"variable '{self.name}' is a {self._type.name}, which has no lod_level"
            )
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level < 2**31:
            raise InvalidArgument(f"variable '{self.name}': bad lod_level {level!r}")
        getattr(self._proto.type, TENSOR_DESC_VAR_TYPES[self._type]).lod_level = level

    persistable = property(
        lambda self: self._proto.persistable,
        lambda self, v: _set_flag(self, "persistable", v),
        doc="Kept in the scope across runs (parameters, their optimizer state).",
    )
    need_check_feed = property(
        lambda self: self._proto.need_check_feed,
        lambda self, v: _set_flag(self, "need_check_feed", v),
        doc="A feed target whose fed tensor is checked against this description.",
    )
    stop_gradient = property(
        lambda self: self._proto.stop_gradient,
        lambda self, v: _set_flag(self, "stop_gradient", v),
    )
    is_parameter = property(
        lambda self: self._proto.is_parameter,
        lambda self, v: _set_flag(self, "is_parameter", v),
    )

    @property
    def attrs(self) -> Mapping[str, object]:
        """VarDesc attributes (INT, STRING or INTS values; rare in saved programs)."""
        return MappingProxyType(self._attrs)

    @property
    def proto(self) -> pb.VarDesc:
        """The backing protobuf message (change it only through this class)."""
        return self._proto

    def __repr__(self) -> str:
        if self._shape is None and self._dtype is None:
            return f"VarDesc({self.name}: {self._type.name})"
        flag = ", persistable" if self.persistable else ""
        return f"VarDesc({self.name}: {self._dtype}{list(self._shape or ())}{flag})"


def _set_flag(var: VarDesc, field: str, value: object) -> None:
    if not isinstance(value, bool) and type(value).__name__ != "bool_":
        raise InvalidArgument(f"variable '{var.name}': {field} must be a bool, got {value!r}")
    setattr(var._proto, field, bool(value))


def _proto_name(number: int) -> str:
    try:
        return f"{VarType(number).name} ({number})"
    except ValueError:
        return str(number)
