"""Issue 11's op list: every legacy op of the dense, fused and quantization families that
Paddle 2.6.2 runs on CPU (tests/fixtures/cpu_ops.json, a copy of the corpus's list) either runs
here or reports itself unavailable (fluid_compat/operators/unavailable.py).

NOT_YET lists the ops still missing; it may only shrink: an op that starts to run must leave
it (the test fails otherwise, so the list never overstates what is missing), and an op that
is neither runnable nor listed fails the test.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import run_op
from fluid_compat.framework.op_desc import OpDesc
from fluid_compat.operators.build import make_operator
from fluid_compat.operators.unavailable import UNAVAILABLE
from fluid_compat.tools.ops_status import collect
from phi.core.errors import Unavailable

CPU_OPS = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "cpu_ops.json")
                     .read_text())["ops"]
FAMILIES = ("dense math / nn / manipulation", "fused / fusion (inference passes)",
            "quantization")
RUNS = frozenset({"both", "phi-only", "fluid-only", "operator", "unavailable"})

NOT_YET = frozenset({
    "bilateral_slice", "cudnn_lstm", "faster_tokenizer", "fusion_gru",
    "fusion_seqconv_eltadd_relu", "fusion_seqexpand_concat_fc", "generate_mask_labels",
    "get_tensor_from_selected_rows", "merge_selected_rows", "warprnnt",
})


def _statuses() -> dict[str, str]:
    ops = [op for op, v in CPU_OPS.items() if v["group"] in FAMILIES]
    return {r.op_type: r.status for r in collect(ops)}


def test_every_op_of_the_families_runs_or_is_unavailable():
    statuses = _statuses()
    missing = {op for op, status in statuses.items() if status not in RUNS}
    assert not missing - NOT_YET, f"ops that neither run nor say why: {sorted(missing - NOT_YET)}"
    assert not NOT_YET - missing, f"these ops run now; drop them from NOT_YET: " \
                                  f"{sorted(NOT_YET - missing)}"


@pytest.mark.parametrize("op_type", sorted(UNAVAILABLE))
def test_unavailable_ops_are_refused_at_plan_time(op_type):
    from opmakers import get_op_proto

    proto = get_op_proto(op_type)
    desc = OpDesc(op_type, {v.name: [f"{v.name}_in"] for v in proto.inputs},
                  {v.name: [f"{v.name}_out"] for v in proto.outputs}, {})
    with pytest.raises(Unavailable, match=rf"op #3 `{op_type}` cannot run in one process"):
        make_operator(3, desc)
    assert _statuses().get(op_type, "unavailable") == "unavailable"


def test_run_op_refuses_an_unavailable_op_with_the_reason():
    with pytest.raises(Unavailable, match="all_reduce.*needs a process group"):
        run_op("all_reduce", {"x": np.ones(2, np.float32)}, {})
