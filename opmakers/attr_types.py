"""Attribute types of legacy OpDescs and the conversion of Python values to them.

`AttrType` carries the numbers of ``paddle.framework.proto.AttrType``.  `coerce` turns a Python
value into the canonical value of an attribute type, accepting what Paddle's attribute checker
accepts (``ExtractAttribute<T>`` in ``fluid/framework/attribute.h``):

* INT / LONG: an int (never a bool, never a float), in the int32 / int64 range;
* FLOAT / FLOAT64: a float or an int; FLOAT values are rounded to float32, as Paddle stores them;
* BOOLEAN: a bool; Paddle also converts an int or a float to bool, and so do we;
* STRING: a str;
* list types: a list or tuple of the element type (ints are fine for FLOATS / FLOAT64S);
* BLOCK: a block index (int >= 0) or a block object with an int ``idx``;
* VAR / VARS: a `VarRef` / a list of them (an attribute that is a Variable, see `VarRef`);
* SCALAR / SCALARS: a bool, int, float or complex / a list of them.

A bool is accepted only where a BOOLEAN (or SCALAR) is expected: ``True`` for an INT is a bug
Paddle rejects too.  Lists come back as new lists, so callers may keep or change them.
"""

from __future__ import annotations

import enum
import math
import numbers
import struct
from collections.abc import Callable
from typing import Any

import phi.core.records as records

__all__ = [
    "CONVERTERS",
    "LIST_TYPES",
    "AttrType",
    "AttrTypeMismatch",
    "VarRef",
    "attr_var_names",
    "coerce",
    "expected_text",
    "round_to_float32",
    "show_value",
]


class AttrType(enum.IntEnum):
    """``paddle.framework.proto.AttrType``: the type tag of an OpDesc / OpProto attribute."""

    INT = 0
    FLOAT = 1
    STRING = 2
    INTS = 3
    FLOATS = 4
    STRINGS = 5
    BOOLEAN = 6
    BOOLEANS = 7
    BLOCK = 8
    LONG = 9
    BLOCKS = 10
    LONGS = 11
    FLOAT64S = 12
    VAR = 13
    VARS = 14
    FLOAT64 = 15
    SCALAR = 16
    SCALARS = 17

    @classmethod
    def parse(cls, name: str) -> AttrType:
        """The type named `name`: a protobuf enum name, or the ``BOOL``/``BOOLS`` abbreviation."""
        key = {"BOOL": "BOOLEAN", "BOOLS": "BOOLEANS"}.get(name, name)
        try:
            return cls[key]
        except KeyError:
            known = ", ".join(m.name for m in cls)
            raise ValueError(f"unknown attribute type {name!r}; known: {known}") from None


@records.frozen
class VarRef:
    """An attribute whose value is a Variable (AttrType VAR; a list of them is VARS).

    Only attributes marked ``support_tensor`` may hold one: the operator then reads the value
    from the variable at run time instead of from the OpDesc.
    """

    name: str = records.field(validator=records.instance_of(str))


def attr_var_names(attrs: Any) -> dict[str, tuple[str, ...]]:
    """Attribute name -> the variable names it holds, for the attributes of `attrs` (a mapping)
    that are a `VarRef` (VAR) or a non-empty list of them (VARS).  Paddle's OperatorBase takes
    each such attribute as an input of the attribute's name, read at every run."""
    out: dict[str, tuple[str, ...]] = {}
    for name, value in attrs.items():
        if isinstance(value, VarRef):
            out[name] = (value.name,)
        elif (isinstance(value, (list, tuple)) and value
              and all(isinstance(v, VarRef) for v in value)):
            out[name] = tuple(v.name for v in value)
    return out


class AttrTypeMismatch(Exception):
    """Raised by `coerce`; its message is a detail to add to "expected X, got Y" (may be empty),
    e.g. which list element is wrong or which range was left."""


_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_F32 = struct.Struct("<f")

#: list type -> element type
LIST_TYPES: dict[AttrType, AttrType] = {
    AttrType.INTS: AttrType.INT,
    AttrType.FLOATS: AttrType.FLOAT,
    AttrType.STRINGS: AttrType.STRING,
    AttrType.BOOLEANS: AttrType.BOOLEAN,
    AttrType.BLOCKS: AttrType.BLOCK,
    AttrType.LONGS: AttrType.LONG,
    AttrType.FLOAT64S: AttrType.FLOAT64,
    AttrType.VARS: AttrType.VAR,
    AttrType.SCALARS: AttrType.SCALAR,
}

_EXPECTED: dict[AttrType, str] = {
    AttrType.INT: "INT (an int in the int32 range)",
    AttrType.LONG: "LONG (an int in the int64 range)",
    AttrType.FLOAT: "FLOAT (a float or an int)",
    AttrType.FLOAT64: "FLOAT64 (a float or an int)",
    AttrType.STRING: "STRING (a str)",
    AttrType.BOOLEAN: "BOOLEAN (a bool)",
    AttrType.BLOCK: "BLOCK (a block index >= 0 or a block)",
    AttrType.VAR: "VAR (a VarRef)",
    AttrType.SCALAR: "SCALAR (a bool, int, float or complex)",
}
for _list_type, _elem_type in LIST_TYPES.items():
    _EXPECTED[_list_type] = f"{_list_type.name} (a list of {_EXPECTED[_elem_type].split(' (')[0]})"


def expected_text(attr_type: AttrType) -> str:
    """How an error message names what `attr_type` accepts, e.g. ``INT (an int ...)``."""
    return _EXPECTED[attr_type]


def _is_bool(value: Any) -> bool:
    # numpy's bool_ is neither a bool nor a numbers.Integral
    return isinstance(value, bool) or getattr(getattr(value, "dtype", None), "kind", "") == "b"


def _as_int(value: Any, lo: int, hi: int, what: str) -> int:
    if type(value) is not int:
        if _is_bool(value) or not isinstance(value, numbers.Integral):
            raise AttrTypeMismatch("")
        value = int(value)
    if not lo <= value <= hi:
        raise AttrTypeMismatch(f"{value} is outside {what} [{lo}, {hi}]")
    return value


def _to_int(value: Any) -> int:
    return _as_int(value, _INT32_MIN, _INT32_MAX, "the int32 range")


def _to_long(value: Any) -> int:
    return _as_int(value, _INT64_MIN, _INT64_MAX, "the int64 range")


def round_to_float32(value: float) -> float:
    """`value` rounded to the nearest float32, as a Python float (overflow gives +-inf)."""
    try:
        return _F32.unpack(_F32.pack(value))[0]
    except OverflowError:  # beyond float32: C++ float conversion gives infinity
        return math.copysign(math.inf, value)


def _to_float64(value: Any) -> float:
    if type(value) is float:
        return value
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise AttrTypeMismatch("")
    return float(value)


def _to_float(value: Any) -> float:
    return round_to_float32(_to_float64(value))


def _to_string(value: Any) -> str:
    if not isinstance(value, str):
        raise AttrTypeMismatch("")
    return str(value)


def _to_bool(value: Any) -> bool:
    if type(value) is bool:
        return value
    if _is_bool(value) or isinstance(value, numbers.Real):  # Paddle converts int/float to bool
        return bool(value)
    raise AttrTypeMismatch("")


def _to_block(value: Any) -> Any:
    if isinstance(getattr(value, "idx", None), int):
        return value
    return _as_int(value, 0, _INT32_MAX, "the block indices")


def _to_var(value: Any) -> VarRef:
    if not isinstance(value, VarRef):
        raise AttrTypeMismatch("")
    return value


def _to_scalar(value: Any) -> bool | int | float | complex:
    if _is_bool(value):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, numbers.Complex):
        return complex(value)
    raise AttrTypeMismatch("")


_SCALAR_CONVERTERS: dict[AttrType, Callable[[Any], Any]] = {
    AttrType.INT: _to_int,
    AttrType.LONG: _to_long,
    AttrType.FLOAT: _to_float,
    AttrType.FLOAT64: _to_float64,
    AttrType.STRING: _to_string,
    AttrType.BOOLEAN: _to_bool,
    AttrType.BLOCK: _to_block,
    AttrType.VAR: _to_var,
    AttrType.SCALAR: _to_scalar,
}


def _list_converter(elem: Callable[[Any], Any]) -> Callable[[Any], list[Any]]:
    def convert(value: Any) -> list[Any]:
        if not isinstance(value, (list, tuple)):
            raise AttrTypeMismatch("")
        out = []
        for i, item in enumerate(value):
            try:
                out.append(elem(item))
            except AttrTypeMismatch as exc:
                detail = f"element {i} is {_show(item)}"
                raise AttrTypeMismatch(f"{detail}: {exc}" if str(exc) else detail) from None
        return out

    return convert


CONVERTERS: dict[AttrType, Callable[[Any], Any]] = dict(_SCALAR_CONVERTERS)
for _list_type, _elem_type in LIST_TYPES.items():
    CONVERTERS[_list_type] = _list_converter(_SCALAR_CONVERTERS[_elem_type])


def coerce(attr_type: AttrType, value: Any) -> Any:
    """`value` as the canonical Python value of `attr_type`; raises `AttrTypeMismatch`."""
    return CONVERTERS[attr_type](value)


def _show(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def show_value(value: Any) -> str:
    """A short ``type repr`` rendering of `value` for error messages."""
    return _show(value)
