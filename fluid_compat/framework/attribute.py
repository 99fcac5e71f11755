"""Operator attribute values: ``OpDesc.Attr`` protobuf <-> Python values.

Python values by AttrType:

=========  ===========================  ==========  =====================================
AttrType   Python value                 AttrType    Python value
=========  ===========================  ==========  =====================================
INT        int (int32)                  INTS        tuple[int, ...]
LONG       int (int64)                  LONGS       tuple[int, ...]
FLOAT      float (a float32 value)      FLOATS      tuple[float, ...]
FLOAT64    float                        FLOAT64S    tuple[float, ...]
STRING     str                          STRINGS     tuple[str, ...]
BOOLEAN    bool                         BOOLEANS    tuple[bool, ...]
BLOCK      int (block index)            BLOCKS      tuple[int, ...]
VAR        VarRef (a variable's name)   VARS        tuple[VarRef, ...]
SCALAR     bool | int | float | complex SCALARS     tuple[...] of those
=========  ===========================  ==========  =====================================

List-valued attributes are returned as tuples: a decoded description is cached and shared, so it
must not be mutated in place (change it with ``OpDesc.set_attr``), and tuples can serve in cache
keys.  Lists and tuples are both accepted when setting.

A VAR / VARS attribute (Paddle writes one where an OpProto attribute is ``support_tensor`` and the
program gave a Variable: a reduce axis, an unpool output size ...) names variables whose tensors
hold the value at run time; it reads as ``opmakers.VarRef`` (not a bare str, so that nothing
mistakes the name for the value).  A str is accepted for them when setting.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence

from fluid_compat.framework.enums import AttrType
from fluid_compat.framework.proto import messages as pb
from opmakers.attr_types import VarRef
from phi.core.errors import InvalidArgument

__all__ = ["AttrValue", "decode_attr", "encode_attr", "infer_attr_type"]

AttrValue = object  # one of the Python values in the module docstring

_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)

# Scalar.Type numbers (framework.proto)
_SCALAR_BOOLEAN, _SCALAR_LONG, _SCALAR_FLOAT64, _SCALAR_COMPLEX128 = 1, 2, 3, 4


class _BadString(Exception):
    """A string field that protobuf could not decode as UTF-8 (upb hands back bytes)."""


def _s(value: object) -> str:
    if type(value) is not str:
        raise _BadString
    return value


def _strs(values: Sequence[object]) -> tuple[str, ...]:
    out = tuple(values)
    for v in out:
        if type(v) is not str:
            raise _BadString
    return out


def _decode_scalar(s: pb.Scalar) -> bool | int | float | complex:
    t = s.type
    if t == _SCALAR_BOOLEAN:
        return bool(s.b)
    if t == _SCALAR_LONG:
        return int(s.i)
    if t == _SCALAR_FLOAT64:
        return float(s.r)
    return complex(s.c.r, s.c.i)


_DECODERS: dict[int, Callable[[pb.OpDesc.Attr], AttrValue]] = {
    AttrType.INT: lambda a: a.i,
    AttrType.FLOAT: lambda a: a.f,
    AttrType.STRING: lambda a: _s(a.s),
    AttrType.INTS: lambda a: tuple(a.ints),
    AttrType.FLOATS: lambda a: tuple(a.floats),
    AttrType.STRINGS: lambda a: _strs(a.strings),
    AttrType.BOOLEAN: lambda a: a.b,
    AttrType.BOOLEANS: lambda a: tuple(a.bools),
    AttrType.BLOCK: lambda a: a.block_idx,
    AttrType.LONG: lambda a: a.l,
    AttrType.BLOCKS: lambda a: tuple(a.blocks_idx),
    AttrType.LONGS: lambda a: tuple(a.longs),
    AttrType.FLOAT64S: lambda a: tuple(a.float64s),
    AttrType.VAR: lambda a: VarRef(_s(a.var_name)),
    AttrType.VARS: lambda a: tuple(VarRef(n) for n in _strs(a.vars_name)),
    AttrType.FLOAT64: lambda a: a.float64,
    AttrType.SCALAR: lambda a: _decode_scalar(a.scalar),
    AttrType.SCALARS: lambda a: tuple(_decode_scalar(s) for s in a.scalars),
}


_ATTR_TYPES = tuple(sorted(AttrType))  # AttrType by number (0..17, no gaps): no enum call per attr


def decode_attr(attr: pb.OpDesc.Attr) -> tuple[str, AttrType, AttrValue]:
    """(name, type, value) of one attribute.  A value field left unset reads as its default,
    as Paddle reads it.  Raises ``ValueError`` for a name or string that is not valid UTF-8
    (callers turn it into a ProgramFileError that says where)."""
    try:
        name = _s(attr.name)
        t = attr.type
        return name, _ATTR_TYPES[t], _DECODERS[t](attr)
    except _BadString:
        raise ValueError("an attribute name or string value is not valid UTF-8") from None


# -- encoding --------------------------------------------------------------------------------


def _is_bool(v: object) -> bool:
    return isinstance(v, bool) or type(v).__name__ == "bool_"  # numpy.bool_ without numpy


def _is_int(v: object) -> bool:
    return isinstance(v, numbers.Integral) and not _is_bool(v)


def _is_real(v: object) -> bool:
    return isinstance(v, numbers.Real) and not _is_bool(v)


def _unwrap(v: object) -> object:
    # phi.common.Scalar and similar wrappers carry the number in `.value`
    return getattr(v, "value", v) if type(v).__name__ == "Scalar" else v


def infer_attr_type(value: object) -> AttrType:
    """The AttrType a Python value gets when none is given (Paddle's Python-side rules:
    int -> INT unless it needs 64 bits, float -> FLOAT, list of ints -> INTS ...; a VarRef ->
    VAR, a list of VarRefs -> VARS).

    Raises InvalidArgument for an empty list (its element type is unknown: pass the type) and
    for values no attribute can hold.  BLOCK/BLOCKS/FLOAT64 are never inferred.
    """
    value = _unwrap(value)
    if isinstance(value, VarRef):
        return AttrType.VAR
    if _is_bool(value):
        return AttrType.BOOLEAN
    if _is_int(value):
        return AttrType.INT if _INT32[0] <= int(value) <= _INT32[1] else AttrType.LONG
    if _is_real(value):
        return AttrType.FLOAT
    if isinstance(value, str):
        return AttrType.STRING
    if isinstance(value, numbers.Complex):
        return AttrType.SCALAR
    if isinstance(value, (list, tuple)):
        items = [_unwrap(v) for v in value]
        if not items:
            raise InvalidArgument(
                "cannot infer the type of an empty list attribute; pass attr_type "
                "(AttrType.INTS, FLOATS, STRINGS, ...)"
            )
        if all(isinstance(v, VarRef) for v in items):
            return AttrType.VARS
        if all(_is_bool(v) for v in items):
            return AttrType.BOOLEANS
        if all(_is_int(v) for v in items):
            fits = all(_INT32[0] <= int(v) <= _INT32[1] for v in items)
            return AttrType.INTS if fits else AttrType.LONGS
        if all(_is_real(v) for v in items):
            return AttrType.FLOATS
        if all(isinstance(v, str) for v in items):
            return AttrType.STRINGS
        if all(isinstance(v, numbers.Complex) for v in items):
            return AttrType.SCALARS
    raise InvalidArgument(f"no attribute type can hold the value {value!r}")


def _check(ok: bool, what: str, value: object) -> None:
    if not ok:
        raise InvalidArgument(f"expected {what}, got {value!r} ({type(value).__name__})")


def _int(v: object, bounds: tuple[int, int], what: str) -> int:
    _check(_is_int(v) and bounds[0] <= int(v) <= bounds[1], what, v)
    return int(v)  # type: ignore[call-overload]


def _real(v: object) -> float:
    _check(_is_real(v), "a real number", v)
    return float(v)  # type: ignore[arg-type]


def _bool(v: object) -> bool:
    _check(_is_bool(v), "a bool", v)
    return bool(v)


def _str(v: object) -> str:
    _check(isinstance(v, str), "a str", v)
    return v  # type: ignore[return-value]


def _seq(v: object) -> list[object]:
    _check(isinstance(v, (list, tuple)), "a list or tuple", v)
    return [_unwrap(x) for x in v]  # type: ignore[union-attr]


def _fill_scalar(s: pb.Scalar, v: object) -> bool | int | float | complex:
    v = _unwrap(v)
    if _is_bool(v):
        s.type, s.b = _SCALAR_BOOLEAN, bool(v)
        return bool(v)
    if _is_int(v):
        s.type, s.i = _SCALAR_LONG, _int(v, _INT64, "an int64")
        return int(v)  # type: ignore[call-overload]
    if _is_real(v):
        s.type, s.r = _SCALAR_FLOAT64, float(v)  # type: ignore[arg-type]
        return float(v)  # type: ignore[arg-type]
    _check(isinstance(v, numbers.Complex), "a bool, int, float or complex", v)
    c = complex(v)  # type: ignore[arg-type]
    s.type = _SCALAR_COMPLEX128
    s.c.r, s.c.i = c.real, c.imag
    return c


def encode_attr(attr: pb.OpDesc.Attr, name: str, attr_type: AttrType, value: object) -> AttrValue:
    """Fill a cleared ``attr`` with (name, type, value); returns the value as ``decode_attr``
    would read it back.  Raises InvalidArgument when the value does not fit the type."""
    t = AttrType(attr_type)
    value = _unwrap(value)
    attr.name = name
    attr.type = int(t)
    if t == AttrType.INT:
        attr.i = _int(value, _INT32, "an int32")
    elif t == AttrType.LONG:
        attr.l = _int(value, _INT64, "an int64")
    elif t == AttrType.FLOAT:
        attr.f = _real(value)
    elif t == AttrType.FLOAT64:
        attr.float64 = _real(value)
    elif t == AttrType.STRING:
        attr.s = _str(value)
    elif t == AttrType.BOOLEAN:
        attr.b = _bool(value)
    elif t == AttrType.BLOCK:
        attr.block_idx = _int(getattr(value, "idx", value), (0, _INT32[1]), "a block index")
    elif t == AttrType.VAR:
        attr.var_name = _str(getattr(value, "name", value))
    elif t == AttrType.INTS:
        attr.ints.extend(_int(v, _INT32, "int32 elements") for v in _seq(value))
    elif t == AttrType.LONGS:
        attr.longs.extend(_int(v, _INT64, "int64 elements") for v in _seq(value))
    elif t == AttrType.FLOATS:
        attr.floats.extend(_real(v) for v in _seq(value))
    elif t == AttrType.FLOAT64S:
        attr.float64s.extend(_real(v) for v in _seq(value))
    elif t == AttrType.STRINGS:
        attr.strings.extend(_str(v) for v in _seq(value))
    elif t == AttrType.BOOLEANS:
        attr.bools.extend(_bool(v) for v in _seq(value))
    elif t == AttrType.BLOCKS:
        attr.blocks_idx.extend(
            _int(getattr(v, "idx", v), (0, _INT32[1]), "block indices") for v in _seq(value)
        )
    elif t == AttrType.VARS:
        attr.vars_name.extend(_str(getattr(v, "name", v)) for v in _seq(value))
    elif t == AttrType.SCALAR:
        return _fill_scalar(attr.scalar, value)
    elif t == AttrType.SCALARS:
        return tuple(_fill_scalar(attr.scalars.add(), v) for v in _seq(value))
    return _DECODERS[t](attr)
