"""DataType (phi numbering) and the legacy protobuf ``VarType.Type`` numbering, with conversions.

Two numberings exist and must never be mixed inside one module: phi's ``DataType`` (FLOAT32 = 10)
used by kernel keys, and the protobuf ``VarType.Type`` (FP32 = 5) used by program files and by
``dtype``-like attributes of legacy ops.  Convert at the boundary with :meth:`DataType.from_proto`
and :meth:`DataType.to_proto`.
"""

from __future__ import annotations

import enum

import numpy as np

from phi.core.errors import InvalidArgument

__all__ = ["DataType", "ProtoVarType"]


class DataType(enum.IntEnum):
    """Paddle 2.6.2 ``phi::DataType`` (phi/common/data_type.h)."""

    ALL_DTYPE = 0  # == UNDEFINED
    BOOL = 1
    UINT8 = 2
    INT8 = 3
    UINT16 = 4
    INT16 = 5
    UINT32 = 6
    INT32 = 7
    UINT64 = 8
    INT64 = 9
    FLOAT32 = 10
    FLOAT64 = 11
    COMPLEX64 = 12
    COMPLEX128 = 13
    PSTRING = 14
    FLOAT16 = 15
    BFLOAT16 = 16
    NUM_DATA_TYPES = 17

    UNDEFINED = 0

    # hash as the int (C speed): Enum's default hashes the member name in Python, and
    # these values key every kernel lookup
    __hash__ = int.__hash__

    def __str__(self) -> str:
        return _DTYPE_STR[self]

    # -- numpy ---------------------------------------------------------------------------
    def to_numpy(self) -> np.dtype:
        """The numpy dtype of this DataType (bfloat16 through ml_dtypes)."""
        found = _TO_NUMPY.get(self)
        if found is None and self is DataType.BFLOAT16 and _add_bfloat16():
            found = _TO_NUMPY.get(self)
        if found is None:
            raise InvalidArgument(f"DataType {self} has no numpy equivalent.")
        return found

    @classmethod
    def from_numpy(cls, dtype: object) -> DataType:
        """numpy dtype (or anything ``np.dtype`` accepts) -> DataType."""
        found = _FROM_NUMPY.get(dtype)  # fast path: dtype objects hash
        if found is not None:
            return found
        try:
            found = _FROM_NUMPY.get(np.dtype(dtype))
        except TypeError:
            found = None
        if found is None and _add_bfloat16():  # "bfloat16" or ml_dtypes' dtype: ask again
            return cls.from_numpy(dtype)
        if found is None:
            raise InvalidArgument(f"numpy dtype {dtype!r} has no phi DataType.")
        return found

    # -- legacy protobuf numbering -------------------------------------------------------
    def to_proto(self) -> ProtoVarType:
        found = _TO_PROTO.get(self)
        if found is None:
            raise InvalidArgument(f"DataType {self} has no protobuf VarType.Type.")
        return found

    @classmethod
    def from_proto(cls, value: int) -> DataType:
        """Protobuf ``VarType.Type`` number (FP32 = 5) -> DataType; -1 means undefined."""
        if value == -1:
            return cls.UNDEFINED
        found = _FROM_PROTO.get(value)
        if found is None:
            raise InvalidArgument(
                f"Protobuf VarType.Type {value} is not a tensor data type "
                f"(expected one of {sorted(int(v) for v in _FROM_PROTO)})."
            )
        return found

    # -- user-facing ---------------------------------------------------------------------
    @classmethod
    def from_any(cls, value: object) -> DataType:
        """DataType, numpy dtype or type, or a name such as ``"bfloat16"`` / ``"float32"``.

        Plain ints are refused: they would be ambiguous between the phi and protobuf numberings;
        use :meth:`from_proto` for the legacy numbering.
        """
        if isinstance(value, DataType):
            return value
        if isinstance(value, str):
            found = _FROM_STRING.get(value.lower())
            if found is not None:
                return found
            raise InvalidArgument(
                f"Unknown data type name {value!r}; expected one of {sorted(_FROM_STRING)}."
            )
        if isinstance(value, (bool, int)):
            raise InvalidArgument(
                f"Ambiguous data type {value!r}: an int could be a phi DataType or a protobuf "
                "VarType.Type number; pass a DataType, a numpy dtype or a name."
            )
        return cls.from_numpy(value)

    @property
    def itemsize(self) -> int:
        return _ITEMSIZE[self]

    @property
    def is_floating_point(self) -> bool:
        return self in (DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT32, DataType.FLOAT64)

    @property
    def is_complex(self) -> bool:
        return self in (DataType.COMPLEX64, DataType.COMPLEX128)

    @property
    def is_integer(self) -> bool:
        return self in _INTEGERS


class ProtoVarType(enum.IntEnum):
    """The data-type members of protobuf ``VarType.Type`` (framework.proto)."""

    BOOL = 0
    INT16 = 1
    INT32 = 2
    INT64 = 3
    FP16 = 4
    FP32 = 5
    FP64 = 6
    SIZE_T = 19
    UINT8 = 20
    INT8 = 21
    BF16 = 22
    COMPLEX64 = 23
    COMPLEX128 = 24


_DTYPE_STR = {
    DataType.ALL_DTYPE: "Undefined(ALL_DTYPE)",
    DataType.BOOL: "bool",
    DataType.UINT8: "uint8",
    DataType.INT8: "int8",
    DataType.UINT16: "uint16",
    DataType.INT16: "int16",
    DataType.UINT32: "uint32",
    DataType.INT32: "int32",
    DataType.UINT64: "uint64",
    DataType.INT64: "int64",
    DataType.FLOAT32: "float32",
    DataType.FLOAT64: "float64",
    DataType.COMPLEX64: "complex64",
    DataType.COMPLEX128: "complex128",
    DataType.PSTRING: "pstring",
    DataType.FLOAT16: "float16",
    DataType.BFLOAT16: "bfloat16",
    DataType.NUM_DATA_TYPES: "NumDataTypes",
}

_TO_NUMPY: dict[DataType, np.dtype] = {
    DataType.BOOL: np.dtype(np.bool_),
    DataType.UINT8: np.dtype(np.uint8),
    DataType.INT8: np.dtype(np.int8),
    DataType.UINT16: np.dtype(np.uint16),
    DataType.INT16: np.dtype(np.int16),
    DataType.UINT32: np.dtype(np.uint32),
    DataType.INT32: np.dtype(np.int32),
    DataType.UINT64: np.dtype(np.uint64),
    DataType.INT64: np.dtype(np.int64),
    DataType.FLOAT32: np.dtype(np.float32),
    DataType.FLOAT64: np.dtype(np.float64),
    DataType.COMPLEX64: np.dtype(np.complex64),
    DataType.COMPLEX128: np.dtype(np.complex128),
    DataType.FLOAT16: np.dtype(np.float16),
    # DataType.BFLOAT16: ml_dtypes' bfloat16, added by _add_bfloat16 on first need
}
_FROM_NUMPY: dict[object, DataType] = {v: k for k, v in _TO_NUMPY.items()}
# numpy scalar types hash differently from their dtypes; accept both on the fast path
_FROM_NUMPY.update({v.type: k for k, v in _TO_NUMPY.items()})


def _add_bfloat16() -> bool:
    """Map BFLOAT16 to ml_dtypes' bfloat16 (imported on first need: ~15 ms that a program
    without bfloat16 never pays); False when it was mapped already."""
    if DataType.BFLOAT16 in _TO_NUMPY:
        return False
    import ml_dtypes

    dt = np.dtype(ml_dtypes.bfloat16)
    _FROM_NUMPY[dt] = DataType.BFLOAT16
    _FROM_NUMPY[dt.type] = DataType.BFLOAT16
    _TO_NUMPY[DataType.BFLOAT16] = dt  # last: a thread seeing it finds the reverse maps set
    return True


_TO_PROTO = {
    DataType.BOOL: ProtoVarType.BOOL,
    DataType.INT16: ProtoVarType.INT16,
    DataType.INT32: ProtoVarType.INT32,
    DataType.INT64: ProtoVarType.INT64,
    DataType.FLOAT16: ProtoVarType.FP16,
    DataType.FLOAT32: ProtoVarType.FP32,
    DataType.FLOAT64: ProtoVarType.FP64,
    DataType.UINT8: ProtoVarType.UINT8,
    DataType.INT8: ProtoVarType.INT8,
    DataType.BFLOAT16: ProtoVarType.BF16,
    DataType.COMPLEX64: ProtoVarType.COMPLEX64,
    DataType.COMPLEX128: ProtoVarType.COMPLEX128,
}
_FROM_PROTO: dict[int, DataType] = {int(v): k for k, v in _TO_PROTO.items()}
_FROM_PROTO[int(ProtoVarType.SIZE_T)] = DataType.UINT64  # size_t, as Paddle maps it

_FROM_STRING: dict[str, DataType] = {
    s: d for d, s in _DTYPE_STR.items() if d not in (DataType.ALL_DTYPE, DataType.NUM_DATA_TYPES)
}
_FROM_STRING.update(
    {
        "float": DataType.FLOAT32,
        "double": DataType.FLOAT64,
        "half": DataType.FLOAT16,
        "fp16": DataType.FLOAT16,
        "fp32": DataType.FLOAT32,
        "fp64": DataType.FLOAT64,
        "bf16": DataType.BFLOAT16,
        "int": DataType.INT32,
        "long": DataType.INT64,
        "undefined": DataType.UNDEFINED,
    }
)

_ITEMSIZE = {d: t.itemsize for d, t in _TO_NUMPY.items()}
_ITEMSIZE[DataType.BFLOAT16] = 2
_ITEMSIZE[DataType.PSTRING] = 48
_ITEMSIZE[DataType.ALL_DTYPE] = 0

_INTEGERS = frozenset(
    {
        DataType.UINT8,
        DataType.INT8,
        DataType.UINT16,
        DataType.INT16,
        DataType.UINT32,
        DataType.INT32,
        DataType.UINT64,
        DataType.INT64,
    }
)
