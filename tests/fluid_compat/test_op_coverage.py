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
    "accuracy", "acos", "acosh", "addmm", 
    "allclose", "alloc_float_status", "angle", "as_complex", "as_real", "asin",
    "asinh", "atan", "atan2", "atanh", "auc", "bce_loss", "bilateral_slice",
    "bincount", "bitwise_and", "bitwise_not", "bitwise_or",
    "bitwise_xor", "bmm", "bpr_loss", "brelu", "celu", "check_memory_continue", "check_numerics",
    "clear_float_status", "coalesce_tensor", "complex", "conj",
    "cos", "cosh", "cross", "cross_entropy", "cross_entropy2", "cudnn_lstm", "cummax", "cummin",
    "cumprod", "data", "data_norm", "detection_map", "digamma", "dirichlet", "dist", "dot", 
    "elementwise_floordiv", "elementwise_fmax",
    "elementwise_fmin", "elementwise_heaviside", "elementwise_mod", "equal_all", "erfinv",
    "expm1", "faster_tokenizer", "frobenius_norm",
    "fsp", "fusion_gru", "fusion_seqconv_eltadd_relu", "fusion_seqexpand_concat_fc",
    "gather_tree", "gaussian_inplace", "generate_mask_labels", "get_float_status",
    "get_tensor_from_selected_rows", "grad_add", "graph_khop_sampler", "graph_sample_neighbors",
    "graph_send_recv", "graph_send_ue_recv", "graph_send_uv", "gumbel_softmax",
    "hash", "hinge_loss", "histogram", "huber_loss", "i0", "i0e", "i1", "i1e", "identity_loss",
    "imag", "index_add", "index_put", "index_sample", "index_select_strided", 
    "isclose", "isinf", "isnan", "kldiv_loss", "kron", "kthvalue", "l1_norm", "label_smooth",
    "lerp", "lgamma", "log10", "log1p", "log2", "log_loss", "logcumsumexp", "logit", "logsigmoid",
    "logsumexp", "margin_cross_entropy", "masked_select",
    "mean", "merge_selected_rows", "minus", "mode",
    "modified_huber_loss", "multiplex", "mv", "nanmedian", "nextafter", "nll_loss",
    "norm", "npu_identity", "polygamma", "positive_negative_pair",
    "pow2_decay_with_linear_warmup", "precision_recall", "put_along_axis", "rank_loss",
    "real", "reciprocal", "reduce_amax", "reduce_amin", "renorm", "repeat_interleave", "rrelu",
    "scatter", "scatter_nd_add", "searchsorted", "segment_pool", "selu", "set_value",
    "shadow_output", "shard_index", "sigmoid_cross_entropy_with_logits", "similarity_focus",
    "sin", "sinh", "soft_relu", "softmax_with_cross_entropy", "softplus",
    "softshrink", "softsign", "spectral_norm", "square", "squared_l2_norm", "stanh",
    "take_along_axis", "tan", "tanh_shrink", "teacher_student_sigmoid_loss",
    "thresholded_relu", "trace", "trunc", "unique_consecutive",
    "unique_with_counts", "warprnnt", "weighted_sample_neighbors", "where_index",
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
