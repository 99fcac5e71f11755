"""Helpers of the opmakers tests: where the corpus is, value comparison, a protobuf reader.

The corpus (``<repo>/../shared/corpus``) is Paddle 2.6.2's own output; tests that need it skip
when it is absent.  ``data/`` holds a few single-op cases copied from it so that the core
checks run anywhere.
"""

from __future__ import annotations

import json
import struct
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from opmakers import AttrType
from tests.corpus_paths import CORPUS

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DATA = HERE / "data"
HAVE_CORPUS = (CORPUS / "op_protos.json").is_file()

#: what ``Operator.__init__`` of Paddle's Python framework sets on every op it appends (the
#: rest of an OpDesc's attributes come from the case, or from defaults).
FRAMEWORK_SET = ("op_role", "op_namescope", "op_callstack", "op_device")


@cache
def op_protos() -> dict[str, Any]:
    return json.loads((CORPUS / "op_protos.json").read_text())["ops"]


@cache
def op_extra_attrs() -> dict[str, Any]:
    return json.loads((CORPUS / "op_extra_attrs.json").read_text())["ops"]


def corpus_case_paths() -> list[Path]:
    if not HAVE_CORPUS:
        return []
    return sorted(p for p in (CORPUS / "single_ops").glob("*.json") if p.name != "index.json")


def model_meta_paths() -> list[Path]:
    if not HAVE_CORPUS:
        return []
    return sorted((CORPUS / "models").glob("*/meta.json"))


_FLOAT_TYPES = (AttrType.FLOAT, AttrType.FLOATS)


def same_value(attr_type: AttrType, ours: Any, theirs: Any) -> bool:
    """Equal as values of `attr_type`: float32 for FLOAT(S), exact (type included) otherwise."""
    if attr_type in _FLOAT_TYPES:
        if attr_type is AttrType.FLOAT:
            ours, theirs = [ours], [theirs]
        if not all(isinstance(v, float) for v in ours):
            return False
        return (len(ours) == len(theirs)
                and bool(np.array_equal(np.float32(ours), np.float32(theirs))))
    if isinstance(theirs, (list, tuple)):
        return (isinstance(ours, (list, tuple)) and len(ours) == len(theirs)
                and all(type(a) is type(b) and a == b for a, b in zip(ours, theirs, strict=False)))
    if attr_type in (AttrType.FLOAT64,) and isinstance(theirs, int):
        theirs = float(theirs)
    return type(ours) is type(theirs) and ours == theirs


# ---------------------------------------------------------------------------------------------
# A minimal reader of the protobuf wire format, enough for OpDesc attributes
# (paddle-reference.md 8.1): the bytes are the truth, and this keeps the test independent of
# the project's own program reader.
# ---------------------------------------------------------------------------------------------


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = buf[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, i


def _fields(buf: bytes) -> list[tuple[int, int, Any]]:
    out = []
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(buf, i)
        elif wire == 1:
            value, i = buf[i:i + 8], i + 8
        elif wire == 5:
            value, i = buf[i:i + 4], i + 4
        elif wire == 2:
            size, i = _varint(buf, i)
            value, i = buf[i:i + size], i + size
        else:
            raise ValueError(f"unsupported wire type {wire}")
        out.append((number, wire, value))
    return out


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _decode_attr(buf: bytes) -> tuple[str, AttrType, Any]:
    name, attr_type = "", AttrType.INT
    raw: dict[int, list[tuple[int, Any]]] = {}
    for number, wire, value in _fields(buf):
        if number == 1:
            name = value.decode()
        elif number == 2:
            attr_type = AttrType(value)
        else:
            raw.setdefault(number, []).append((wire, value))

    def ints(number: int) -> list[int]:
        found = []
        for wire, value in raw.get(number, []):
            if wire == 2:  # packed
                j = 0
                while j < len(value):
                    item, j = _varint(value, j)
                    found.append(_signed(item))
            else:
                found.append(_signed(value))
        return found

    def packed(number: int, fmt: str) -> list[float]:
        return [x for _, v in raw.get(number, []) for (x,) in struct.iter_unpack(fmt, v)]

    def strings(number: int) -> list[str]:
        return [v.decode() for _, v in raw.get(number, [])]

    readers = {
        AttrType.INT: lambda: ints(3)[0],
        AttrType.FLOAT: lambda: packed(4, "<f")[0],
        AttrType.STRING: lambda: strings(5)[0],
        AttrType.INTS: lambda: ints(6),
        AttrType.FLOATS: lambda: packed(7, "<f"),
        AttrType.STRINGS: lambda: strings(8),
        AttrType.BOOLEAN: lambda: bool(ints(10)[0]),
        AttrType.BOOLEANS: lambda: [bool(b) for b in ints(11)],
        AttrType.BLOCK: lambda: ints(12)[0],
        AttrType.LONG: lambda: ints(13)[0],
        AttrType.BLOCKS: lambda: ints(14),
        AttrType.LONGS: lambda: ints(15),
        AttrType.FLOAT64S: lambda: packed(16, "<d"),
        AttrType.FLOAT64: lambda: packed(19, "<d")[0],
    }
    return name, attr_type, readers[attr_type]()


def decode_op_attrs(program_desc: bytes) -> list[tuple[str, dict[str, tuple[AttrType, Any]]]]:
    """(op type, {attr name: (type, value)}) of every op of block 0 of a ProgramDesc."""
    block0 = next(v for n, _, v in _fields(program_desc) if n == 1)
    ops = []
    for number, _, op in _fields(block0):
        if number != 4:
            continue
        fields = _fields(op)
        op_type = next(v.decode() for n, _, v in fields if n == 3)
        decoded = (_decode_attr(v) for n, _, v in fields if n == 4)
        ops.append((op_type, {name: (t, value) for name, t, value in decoded}))
    return ops


def sample_value(attr_type: AttrType, *, empty: bool = False) -> Any:
    """A valid value of `attr_type` for a required attribute (a list: [] when `empty`)."""
    from opmakers import VarRef
    from opmakers.attr_types import LIST_TYPES

    if attr_type in LIST_TYPES:
        if empty or attr_type in (AttrType.VARS, AttrType.BLOCKS):
            return []
        return [sample_value(LIST_TYPES[attr_type])]
    return {AttrType.STRING: "x", AttrType.BOOLEAN: False, AttrType.VAR: VarRef("v"),
            AttrType.FLOAT: 0.0, AttrType.FLOAT64: 0.0}.get(attr_type, 0)
