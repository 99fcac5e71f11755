"""op_compat.yaml: the loader's errors (file:line), frozen records, round trip, tensor attrs."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from argmap import CompatFileError, load_compat, parse_compat
from argmap.compat import dump_compat
from tests.argmap.dict_context import DictContext

GOOD = """\
- op: my_fill
  kernel: full
  inputs: []
  attrs: [shape, value, dtype]
  outputs: [Out]
  int_array:
    shape: {tensor_name: ShapeTensor, tensors_name: ShapeTensorList, data_type: int64_t}
  scalar:
    value: {tensor_name: ValueTensor}
"""


def test_tensor_attribute_priority_is_the_generated_ternary() -> None:
    (entry,) = parse_compat(GOOD, "good.yaml")
    assert entry.where == "good.yaml:1"

    def sig(**inputs):
        return str(entry.signature(DictContext(inputs, {"Out": ["o"]})))

    base = "name: full; inputs: ; attributes: {}; outputs: Out"
    assert sig() == base.format("shape, value, dtype")
    assert sig(ShapeTensorList=["a", "b"]) == base.format("ShapeTensorList, value, dtype")
    # the single tensor wins over the list (generated order; reshape2 differs and is a function)
    assert sig(ShapeTensor=["s"], ShapeTensorList=["a"], ValueTensor=["v"]) == base.format(
        "ShapeTensor, ValueTensor, dtype")
    assert sig(ShapeTensor=[]) == base.format("shape, value, dtype")


def test_possible_signatures_are_every_combination() -> None:
    (entry,) = parse_compat(GOOD)
    found = entry.possible_signatures()
    assert len(found) == 3 * 2
    assert {s.attrs for s, _ in found} == {
        (shape, value, "dtype") for shape in ("ShapeTensor", "ShapeTensorList", "shape")
        for value in ("ValueTensor", "value")}
    conditions = {s.attrs: c for s, c in found}
    assert conditions[("ShapeTensorList", "value", "dtype")] == (
        "not has_input(ShapeTensor), input_size(ShapeTensorList) > 0; "
        "not has_input(ValueTensor)")


def test_records_are_frozen_and_round_trip() -> None:
    entries = load_compat()
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        entries[0].kernel = "x"  # type: ignore[misc]
    text = dump_compat(entries)
    assert parse_compat(text) == entries
    assert parse_compat(dump_compat(parse_compat(GOOD))) == parse_compat(GOOD)


def test_package_file_is_sorted_unique_and_remembers_lines() -> None:
    entries = load_compat()
    ops = [e.op for e in entries]
    assert ops == sorted(ops)
    assert all(e.where.startswith("argmap/op_compat.yaml:") and e.line > 0 for e in entries)


def test_load_from_a_path(tmp_path: Path) -> None:
    path = tmp_path / "compat.yaml"
    path.write_text(GOOD, encoding="utf-8")
    (entry,) = load_compat(path)
    assert entry.source == str(path) and entry.line == 1


BAD = [
    # (text, line, message fragment)
    ("- op: a\n  kernel: b\n  inputs: [X]\n  attrs: []\n  outputs: [Out]\n  kernal: c\n", 6,
     "unknown key 'kernal' in entry; allowed: op, kernel"),
    ("- op: a\n  kernel: b\n  inputs: [X]\n  outputs: [Out]\n", 1,
     "entry for op 'a' lacks the key 'attrs'"),
    ("- op: a\n  kernel: b\n  inputs: X\n  attrs: []\n  outputs: [Out]\n", 3,
     "inputs must be a list of names"),
    ("- op: a\n  kernel: b\n  inputs: [X, X]\n  attrs: []\n  outputs: [Out]\n", 3,
     "inputs lists ['X'] twice"),
    (("- op: a\n  kernel: b\n  inputs: [X]\n  attrs: [axis]\n  outputs: [Out]\n"
     "  scalar:\n    axis: {tensor_name: AxisTensor, tensor: Y}\n"), 7,
     "unknown key 'tensor' in scalar.axis"),
    (("- op: a\n  kernel: b\n  inputs: [X]\n  attrs: [axis]\n  outputs: [Out]\n"
     "  scalar:\n    dim: {tensor_name: AxisTensor}\n"), 7,
     "scalar names 'dim', which is not in its attrs"),
    (("- op: a\n  kernel: b\n  inputs: [X]\n  attrs: [axis]\n  outputs: [Out]\n"
     "  scalar:\n    axis: {}\n"), 7, "scalar.axis names no source"),
    (("- op: a\n  kernel: b\n  inputs: [X]\n  attrs: [axis]\n  outputs: [Out]\n"
     "  scalar:\n    axis:\n      tensor_name: X\n"), 8, "'X' is a kernel input of this entry"),
    (("- op: a\n  kernel: b\n  inputs: [X]\n  attrs: [axis]\n  outputs: [Out]\n"
     "  scalar:\n    axis: {support_tensor: yes please}\n"), 7, "support_tensor must be true"),
    (("- op: a\n  kernel: b\n  inputs: [X]\n  attrs: [axis]\n  outputs: [Out]\n"
     "  scalar:\n    axis: {tensor_name: T, data_type: complex}\n"), 7, "data_type 'complex'"),
    (("- op: a\n  kernel: b\n  inputs: [X]\n  attrs: [axis]\n  outputs: [Out]\n"
     "  scalar: {axis: {tensor_name: T}}\n  int_array: {axis: {tensor_name: U}}\n"), 7,
     "declared both as int_array and as scalar"),
    (("- op: a\n  kernel: b\n  inputs: []\n  attrs: []\n  outputs: []\n"
     "- op: c\n  kernel: d\n  inputs: []\n  attrs: []\n  outputs: []\n"
     "- op: a\n  kernel: e\n  inputs: []\n  attrs: []\n  outputs: []\n"), 11,
     "op 'a' is declared twice (first on line 1)"),
    ("- op: a\n  kernel: b\n  op: c\n", 3, "duplicate key 'op' (first on line 1)"),
    ("- op: a\n  kernel: ''\n  inputs: []\n  attrs: []\n  outputs: []\n", 2,
     "kernel must be a non-empty string"),
    ("op: a\n", 1, "must be a list of op entries"),
    ("- op: [a\n", 2, "not valid YAML"),
]


@pytest.mark.parametrize(("text", "line", "fragment"), BAD, ids=[b[2][:40] for b in BAD])
def test_loader_errors_name_file_and_line(text: str, line: int, fragment: str) -> None:
    with pytest.raises(CompatFileError) as info:
        parse_compat(text, "broken.yaml")
    assert info.value.line == line
    assert str(info.value).startswith(f"(InvalidArgument) broken.yaml:{line}: ")
    assert fragment in str(info.value)


def test_empty_file_is_empty() -> None:
    assert parse_compat("", "empty.yaml") == ()
