"""Every legacy op that Paddle 2.6.2 runs on CPU (tests/fixtures/cpu_ops.json, a copy of the
corpus's list) either runs here or reports itself unavailable
(fluid_compat/operators/unavailable.py): the dense, fused and quantization families,
sequence / LoD, detection, io / random / control and communication.

NOT_YET and NOT_YET_12 list the ops still missing; they may only shrink: an op that starts to
run must leave them (the test fails otherwise, so the lists never overstate what is missing),
and an op that is neither runnable nor listed fails the test.
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
FAMILIES_12 = ("sequence / LoD", "detection", "io / random / control",
               "communication (needs a process group)")
RUNS = frozenset({"both", "phi-only", "fluid-only", "operator", "unavailable"})

NOT_YET: frozenset[str] = frozenset()

NOT_YET_12: frozenset[str] = frozenset()


def _statuses(families=FAMILIES) -> dict[str, str]:
    ops = [op for op, v in CPU_OPS.items() if v["group"] in families]
    return {r.op_type: r.status for r in collect(ops)}


@pytest.mark.parametrize(("families", "not_yet"), [(FAMILIES, NOT_YET),
                                                   (FAMILIES_12, NOT_YET_12)],
                         ids=["issue11", "issue12"])
def test_every_op_of_the_families_runs_or_is_unavailable(families, not_yet):
    statuses = _statuses(families)
    missing = {op for op, status in statuses.items() if status not in RUNS}
    assert not missing - not_yet, f"ops that neither run nor say why: {sorted(missing - not_yet)}"
    assert not not_yet - missing, f"these ops run now; drop them from the NOT_YET list: " \
                                  f"{sorted(not_yet - missing)}"


@pytest.mark.parametrize("op_type", sorted(UNAVAILABLE))
def test_unavailable_ops_are_refused_at_plan_time(op_type):
    from opmakers import get_op_proto

    proto = get_op_proto(op_type)
    desc = OpDesc(op_type, {v.name: [f"{v.name}_in"] for v in proto.inputs},
                  {v.name: [f"{v.name}_out"] for v in proto.outputs}, {})
    with pytest.raises(Unavailable, match=rf"op #3 `{op_type}` cannot run in one process"):
        make_operator(3, desc)
    assert _statuses(FAMILIES + FAMILIES_12).get(op_type, "unavailable") == "unavailable"


def test_run_op_refuses_an_unavailable_op_with_the_reason():
    with pytest.raises(Unavailable, match="all_reduce.*needs a process group"):
        run_op("all_reduce", {"x": np.ones(2, np.float32)}, {})


def test_every_op_type_of_paddle_runs_or_says_why_it_never_will():
    """All 784 legacy op types of Paddle 2.6.2 (the corpus's op_protos.json, bundled
    as fluid_compat/tools/paddle_op_types.json) run here, or are unavailable with a reason;
    none is described and left at that."""
    from fluid_compat.tools.ops_status import paddle_op_types

    types = paddle_op_types()
    assert len(types) == 784
    statuses = {r.op_type: r for r in collect(types)}
    idle = sorted(op for op, r in statuses.items() if r.status not in RUNS)
    assert not idle, f"op types that neither run nor say why: {idle}"
    for op, r in statuses.items():
        if r.status == "unavailable":
            assert r.note, f"{op}: unavailable without a reason"
