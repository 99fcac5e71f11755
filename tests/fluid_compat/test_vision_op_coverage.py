"""Every op type of the legacy inference programs Paddle 2.6.2 writes for paddle.vision.models
(alexnet, vgg, resnet, resnext, wide_resnet, mobilenet v1/v2/v3, shufflenet v2, squeezenet,
densenet, googlenet, inception v3, lenet), paddle.nn.Transformer and a BERT-style encoder is
supported by the bridge, as `fluid-compat ops` decides it: an OpProto, and a phi kernel reached
through its argument mapping or a fluid kernel (or, for feed / fetch / control flow, the operator
that runs it). The op types are recorded in tests/fixtures/vision_op_types.json by
tools/fixtures/gen_vision_coverage.py (the models themselves are too large to commit)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fluid_compat.tools.ops_status import collect

TABLE = Path(__file__).resolve().parents[1] / "fixtures" / "vision_op_types.json"
SUPPORTED = ("both", "phi-only", "fluid-only", "operator")

# what the issue asks to cover; a model missing from the table is a test failure
REQUIRED = (
    "alexnet", "vgg11", "vgg16", "resnet18", "resnet50", "resnext50_32x4d", "wide_resnet50_2",
    "mobilenet_v1", "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large",
    "shufflenet_v2_x0_25", "shufflenet_v2_x1_0", "shufflenet_v2_swish", "squeezenet1_0",
    "squeezenet1_1", "densenet121", "googlenet", "inception_v3", "lenet", "transformer",
    "bert_encoder",
)


def _models() -> dict[str, dict]:
    return json.loads(TABLE.read_text())["models"]


def test_table_has_every_model():
    missing = [m for m in REQUIRED if m not in _models()]
    assert not missing, f"{TABLE.name} lacks {missing}: rerun gen_vision_coverage.py"


def test_table_is_consistent():
    for model, entry in _models().items():
        assert entry["op_types"] == sorted(entry["op_type_counts"]), model
        assert sum(entry["op_type_counts"].values()) == entry["num_ops"], model


@pytest.fixture(scope="module")
def statuses():
    op_types = {t for entry in _models().values() for t in entry["op_types"]}
    return {row.op_type: row for row in collect(op_types)}


@pytest.mark.parametrize("model", sorted(_models()))
def test_every_op_type_is_supported(model, statuses):
    problems = []
    for op_type in _models()[model]["op_types"]:
        row = statuses[op_type]
        if not row.has_proto:
            problems.append(f"{op_type}: no OpProto (opmakers)")
        elif row.status not in SUPPORTED:
            problems.append(f"{op_type}: status {row.status}"
                            + (f" ({row.note})" if row.note else ""))
        elif row.argmap_problems:
            problems.append(f"{op_type}: argmap-check: {'; '.join(row.argmap_problems)}")
    assert not problems, f"model {model}: unsupported op types:\n  " + "\n  ".join(problems)
