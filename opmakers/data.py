"""Op definitions read from data: ``opmakers/op_defs.json`` (Paddle 2.6.2's OpProtos).

Every legacy op Paddle 2.6.2 registers (784) is one JSON object of that file, written by
``tools/gen_opmakers.py`` from Paddle's published op data.  Paddle keeps its op descriptions
as data too (``ops.yaml``, ``op_compat.yaml``); generated Python for 784 ops would be ~15k
lines of near-identical functions.  An entry is declared through the OpMaker DSL on first use
(`OpDef.make`), so a data entry gets the same checks as a hand-written definition: default
types, checkers, clashes with the generated attributes.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from opmakers.attr_types import AttrType
from opmakers.maker import OpDef, OpMaker

__all__ = ["OP_DEFS_JSON", "load_op_defs", "load_op_entries", "op_def"]

OP_DEFS_JSON = Path(__file__).with_name("op_defs.json")

_FLOATS = frozenset({"FLOAT", "FLOAT64", "SCALAR", "FLOATS", "FLOAT64S", "SCALARS"})


def _value(attr_type: str, value: Any) -> Any:
    """JSON has no inf / nan: the generator writes them as text."""
    if attr_type in _FLOATS:
        if isinstance(value, list):
            return [float(v) if isinstance(v, str) else v for v in value]
        if isinstance(value, str):
            return float(value)
    return value


def _declare(entry: dict[str, Any]):
    """The DSL definition function of one data entry."""

    def define(m: OpMaker) -> None:
        for name, *marks in entry["inputs"]:
            var = m.add_input(name)
            for mark in marks:
                getattr(var, f"as_{mark}")()
        for name, *marks in entry["outputs"]:
            var = m.add_output(name)
            for mark in marks:
                getattr(var, f"as_{mark}")()
        for attr in entry["attrs"]:
            attr_type = AttrType[attr["type"]]
            if "default" in attr:
                builder = m.add_attr(attr["name"], attr_type,
                                     default=_value(attr["type"], attr["default"]))
            else:
                builder = m.add_attr(attr["name"], attr_type)
            for mark in attr.get("marks", ()):
                getattr(builder, mark if mark == "support_tensor" else f"as_{mark}")()
            for method, argument in attr.get("checks", ()):
                getattr(builder, method)(argument)
        for attr in entry.get("runtime_attrs", ()):
            m.add_runtime_attr(attr["name"], AttrType[attr["type"]],
                               default=_value(attr["type"], attr["default"]))

    return define


@lru_cache(maxsize=1)
def load_op_defs(path: Path = OP_DEFS_JSON) -> dict[str, OpDef]:
    """op type -> OpDef for every entry of the data file (read once)."""
    return {op_type: op_def(op_type, entry) for op_type, entry in load_op_entries(path).items()}


@lru_cache(maxsize=1)
def load_op_entries(path: Path = OP_DEFS_JSON) -> dict[str, OpDef | tuple[str, str]]:
    """op type -> its OpDef, or ``(family, entry JSON)`` that `op_def` makes one of.

    The generator writes one op per line; each line's JSON is parsed when its op is first
    defined (``OpDef.make``) and its OpDef made when first asked for (opmakers.registry), so
    the first lookup reads 784 keys and families, not 218 kB of JSON and 784 definitions (a
    cold-start cost).  A file in another layout is parsed whole, as before."""
    text = Path(path).read_text()
    lines = _op_lines(text)
    if lines is None:
        data = json.loads(text)
        return {op_type: OpDef(op_type, entry["family"], _declare(entry))
                for op_type, entry in data["ops"].items()}
    return {op_type: (family, value) for op_type, family, value in lines}


def op_def(op_type: str, entry: OpDef | tuple[str, str]) -> OpDef:
    """The OpDef of one `load_op_entries` value."""
    if isinstance(entry, OpDef):
        return entry
    family, value = entry
    return OpDef(op_type, family, _declare_later(value))


_FAMILY = '{"family":"'


def _op_lines(text: str) -> list[tuple[str, str, str]] | None:
    """``(op type, family, entry JSON)`` per op line of the generator's layout (header lines,
    ``"ops": {``, one ``"op": {"family":"f",...},`` per line, ``}}``); None for anything else."""
    lines = text.split("\n")
    try:
        start = lines.index(' "ops": {') + 1
    except ValueError:
        return None
    while lines and not lines[-1]:
        lines.pop()
    if start >= len(lines) or lines[-1] != "}}" or not lines[0].startswith("{"):
        return None
    found = []
    for line in lines[start:-1]:
        if not line.startswith('"') or '\\' in line:
            return None
        key_end = line.find('": {')
        value = line[key_end + 3:]
        if value.endswith(","):
            value = value[:-1]
        if key_end < 1 or not value.startswith(_FAMILY) or not value.endswith("}"):
            return None
        family_end = value.find('"', len(_FAMILY))
        if family_end < 0:
            return None
        found.append((line[1:key_end], value[len(_FAMILY):family_end], value))
    if len({op for op, _, _ in found}) != len(found):
        return None  # a duplicate: json.loads' last-one-wins is what the whole parse gives
    return found


def _declare_later(text: str):
    """`_declare` of one entry's JSON text, parsed on the first call."""
    declared = []

    def define(m: OpMaker) -> None:
        if not declared:
            declared.append(_declare(json.loads(text)))
        declared[0](m)

    return define
