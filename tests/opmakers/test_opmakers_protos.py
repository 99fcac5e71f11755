"""The OpProtos and runtime attributes equal what Paddle 2.6.2 registers (op_protos.json,
op_extra_attrs.json), and the generator that wrote them can write any op of the corpus."""

from __future__ import annotations

import importlib.util
import json
import sys
from types import ModuleType
from typing import Any

import pytest
from tests.opmakers.opmakers_testlib import (
    HAVE_CORPUS,
    REPO,
    op_extra_attrs,
    op_protos,
    same_value,
    sample_value,
)

import opmakers
from opmakers import REQUIRED, AttrProto, AttrType, OpProto

needs_corpus = pytest.mark.skipif(not HAVE_CORPUS, reason="../shared/corpus is absent")

#: the ops this package must define (the first inference models and what comes next)
REQUIRED_OPS = (
    "feed", "fetch", "scale", "elementwise_add", "elementwise_sub", "elementwise_mul",
    "elementwise_div", "elementwise_max", "elementwise_min", "elementwise_pow", "matmul",
    "matmul_v2", "mul", "relu", "sigmoid", "tanh", "exp", "softmax", "cast", "fill_constant",
    "reshape2", "transpose2", "concat", "split", "reduce_mean", "reduce_sum", "assign", "conv2d",
    "pool2d", "depthwise_conv2d", "flatten_contiguous_range", "batch_norm", "hard_swish",
    "log_softmax", "dropout",
)

_VAR_MARKS = ("duplicable", "dispensable", "intermediate", "extra", "quant")
_ATTR_MARKS = ("extra", "quant", "generated", "support_tensor")


def test_required_ops_are_defined() -> None:
    missing = [op for op in REQUIRED_OPS if not opmakers.has_op(op)]
    assert missing == []


def assert_proto_matches(proto: OpProto, entry: dict[str, Any]) -> None:
    """`proto` equals Paddle's OpProto `entry` (comments excepted)."""
    assert proto.type == entry["type"]
    for kind in ("inputs", "outputs"):
        ours = [(v.name, *(getattr(v, m) for m in _VAR_MARKS)) for v in getattr(proto, kind)]
        theirs = [(v["name"], *(v[m] for m in _VAR_MARKS)) for v in entry[kind]]
        assert ours == theirs, f"{proto.type} {kind}"
    assert [a.name for a in proto.attrs] == [a["name"] for a in entry["attrs"]]
    for attr, want in zip(proto.attrs, entry["attrs"], strict=False):
        where = f"{proto.type}.{attr.name}"
        assert attr.type is AttrType[want["type"]], where
        assert [getattr(attr, m) for m in _ATTR_MARKS] == [want[m] for m in _ATTR_MARKS], where
        if want["default"] is None:
            assert attr.default is REQUIRED and attr.required, where
        else:
            assert not attr.required, where
            assert same_value(attr.type, attr.default, want["default"]), (
                f"{where}: {attr.default!r} != {want['default']!r}")


def assert_runtime_matches(op_type: str, runtime: tuple[AttrProto, ...],
                           entry: dict[str, Any]) -> None:
    assert [a.name for a in runtime] == list(entry), op_type
    for attr in runtime:
        want = entry[attr.name]
        where = f"{op_type}.{attr.name}"
        assert attr.extra and not attr.required, where
        if not want["type"].startswith("LIST"):  # empty-list defaults carry no element type
            assert attr.type is AttrType[want["type"]], where
        assert same_value(attr.type, list(attr.default) if isinstance(attr.default, tuple)
                          else attr.default, want["default"]), where


@needs_corpus
@pytest.mark.parametrize("op_type", opmakers.all_op_types())
def test_proto_equals_paddle(op_type: str) -> None:
    assert_proto_matches(opmakers.get_op_proto(op_type), op_protos()[op_type])


@needs_corpus
@pytest.mark.parametrize("op_type", opmakers.all_op_types())
def test_runtime_attrs_equal_paddle(op_type: str) -> None:
    runtime = opmakers.get_runtime_attrs(op_type)
    assert_runtime_matches(op_type, runtime, op_extra_attrs().get(op_type, {}))


@pytest.mark.parametrize("op_type", opmakers.all_op_types())
def test_defaults_pass_the_checker(op_type: str) -> None:
    proto = opmakers.get_op_proto(op_type)
    given = {a.name: sample_value(a.type, empty=True) for a in proto.attrs if a.required}
    filled = opmakers.check_attrs(proto, given)
    runtime = opmakers.get_runtime_attrs(op_type)
    assert list(filled) == list(dict.fromkeys([a.name for a in (*proto.attrs, *runtime)]))


# ---------------------------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------------------------


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_opmakers", REPO / "tools" /
                                                  "gen_opmakers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_opmakers", module)
    spec.loader.exec_module(module)
    return module


@needs_corpus
def test_op_defs_json_is_up_to_date() -> None:
    gen = _generator()
    path = REPO / "opmakers" / "op_defs.json"
    previous = json.loads(path.read_text())["ops"]
    assert path.read_text() == gen.render(gen.DEFAULT_CORPUS, previous), \
        "run: python tools/gen_opmakers.py"


@needs_corpus
def test_every_corpus_op_is_described_as_paddle_does() -> None:
    """Every one of the 784 ops is in the registry and rebuilds Paddle's OpProto."""
    protos, extras = op_protos(), op_extra_attrs()
    assert set(opmakers.all_op_types()) >= set(protos)
    for op_type in sorted(protos):
        assert_proto_matches(opmakers.get_op_proto(op_type), protos[op_type])
        assert_runtime_matches(op_type, opmakers.get_runtime_attrs(op_type),
                               extras.get(op_type, {}))
