"""The checker fills in exactly what Paddle 2.6.2 filled in.

For each single-op case, the attributes the case set (plus those Paddle's Python framework
sets on every op it appends) go through `check_attrs`; the result must equal the OpDesc Paddle
wrote: the case's ``op_desc`` attribute map plus the runtime attributes (``extra_attr_defaults``,
which the serialized OpDesc carries), names, types and values (float32 for FLOAT).  Where the
corpus is present, the serialized ``program_desc`` bytes are decoded and compared too, and the
OpDescs of the saved models must pass the checker.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.opmakers.opmakers_testlib import (
    DATA,
    FRAMEWORK_SET,
    corpus_case_paths,
    decode_op_attrs,
    model_meta_paths,
    same_value,
)

import opmakers
from opmakers import AttrType

DATA_CASES = sorted(DATA.glob("*.json"))
CORPUS_CASES = [p for p in corpus_case_paths()
                if opmakers.has_op(json.loads(p.read_text())["op_type"])]


def _type_of(op_type: str, name: str) -> AttrType:
    proto = opmakers.get_op_proto(op_type)
    for attr in (*proto.attrs, *opmakers.get_runtime_attrs(op_type)):
        if attr.name == name:
            return attr.type
    raise AssertionError(f"{op_type} has no attribute {name}")


def _given_and_expected(case: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    desc = case["op_desc"]["attrs"]
    set_by_case = sorted(n for n, a in desc.items() if a["set_by_case"])
    assert set_by_case == sorted(case["attrs_set_by_case"])
    given = {n: a["value"] for n, a in desc.items() if a["set_by_case"] or n in FRAMEWORK_SET}
    expected = {n: (AttrType.parse(a["type"]), a["value"]) for n, a in desc.items()}
    for name, default in case["extra_attr_defaults"].items():
        expected.setdefault(name, (None, default))  # type: checked against the bytes below
    return given, expected


def check_case(case: dict[str, Any]) -> dict[str, Any]:
    op_type = case["op_type"]
    given, expected = _given_and_expected(case)
    filled = opmakers.check_attrs(opmakers.get_op_proto(op_type), given)
    assert sorted(filled) == sorted(expected)
    for name, (want_type, want_value) in expected.items():
        ours = _type_of(op_type, name)
        if want_type is not None:
            assert ours is want_type, f"{op_type}.{name}: {ours.name} vs {want_type.name}"
        assert same_value(ours, filled[name], want_value), (
            f"{op_type}.{name}: {filled[name]!r} vs Paddle's {want_value!r}")
    return filled


@pytest.mark.parametrize("path", DATA_CASES, ids=lambda p: p.stem)
def test_copied_case(path: Path) -> None:
    check_case(json.loads(path.read_text()))


@pytest.mark.parametrize("path", CORPUS_CASES, ids=lambda p: p.stem)
def test_corpus_case(path: Path) -> None:
    case = json.loads(path.read_text())
    filled = check_case(case)

    # The serialized OpDesc: same names (Paddle strips op_callstack), types and values.
    program = np.load(path.with_suffix(".npz"))["program_desc"].tobytes()
    ops = decode_op_attrs(program)
    assert [t for t, _ in ops] == [case["op_type"]]
    serialized = ops[0][1]
    assert sorted(serialized) == sorted(set(filled) - {"op_callstack"})
    for name, (attr_type, value) in serialized.items():
        ours = _type_of(case["op_type"], name)
        assert ours is attr_type, f"{name}: {ours.name} vs serialized {attr_type.name}"
        assert same_value(ours, filled[name], value), f"{name}: {filled[name]!r} vs {value!r}"


def test_copied_cases_are_still_the_corpus_cases() -> None:
    corpus = {p.name: p for p in corpus_case_paths()}
    if not corpus:
        pytest.skip("../shared/corpus is absent")
    for path in DATA_CASES:
        assert json.loads(path.read_text()) == json.loads(corpus[path.name].read_text())


def _model_ops() -> list[tuple[str, int, dict[str, Any]]]:
    found = []
    for meta_path in model_meta_paths():
        meta = json.loads(meta_path.read_text())
        for i, op in enumerate(meta["ops"]):
            found.append((meta_path.parent.name, i, op))
    return found


MODEL_OPS = _model_ops()


def test_models_use_only_defined_ops() -> None:
    if not MODEL_OPS:
        pytest.skip("../shared/corpus is absent")
    assert sorted({op["type"] for _, _, op in MODEL_OPS if not opmakers.has_op(op["type"])}) == []


@pytest.mark.parametrize("model,index,op", MODEL_OPS,
                         ids=[f"{m}-{i}-{op['type']}" for m, i, op in MODEL_OPS])
def test_model_op_passes_checker(model: str, index: int, op: dict[str, Any]) -> None:
    """Saved programs dropped the runtime attributes (and op_callstack): the checker accepts
    what is there, keeps it, and fills in the rest from the defaults."""
    proto = opmakers.get_op_proto(op["type"])
    given = {n: a["value"] for n, a in op["attrs"].items()}
    filled = opmakers.check_attrs(proto, given)
    for name, attr in op["attrs"].items():
        ours = _type_of(op["type"], name)
        assert ours is AttrType.parse(attr["type"]), name
        assert same_value(ours, filled[name], attr["value"]), name
    runtime = opmakers.get_runtime_attrs(op["type"])
    for attr in runtime:
        if attr.name not in given:
            default = list(attr.default) if isinstance(attr.default, tuple) else attr.default
            assert filled[attr.name] == default
