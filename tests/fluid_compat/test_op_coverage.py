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
    "acos", "acosh", "add_position_encoding", "addmm", "affine_channel",
    "affine_grid", "allclose", "alloc_float_status", "angle", "as_complex", "as_real",
    "as_strided", "asin", "asinh", "atan", "atan2", "atanh", "attention_lstm",
    "bicubic_interp", "bicubic_interp_v2", "bilateral_slice", "bilinear_tensor_product",
    "bincount", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bmm",
    "brelu", "broadcast_tensors", "celu", "channel_shuffle", "check_memory_continue",
    "check_numerics", "cholesky", "cholesky_solve", "clear_float_status", "coalesce_tensor",
    "complex", "conj", "conv3d", "conv3d_transpose", "cos", "cosh", "crop", "crop_tensor",
    "cross", "cudnn_lstm", "cummax", "cummin", "cumprod",
    "data", "depthwise_conv2d_transpose", "dequantize_abs_max", "dequantize_linear",
    "dequantize_log", "diag_embed", "diag_v2", "diagonal", "digamma",
    "dirichlet", "dist", "dot", "eig", "eigh", "eigvals", "eigvalsh", "einsum",
    "elementwise_floordiv", "elementwise_fmax", "elementwise_fmin", "elementwise_heaviside",
    "elementwise_mod", "empty", "equal_all", "erfinv", "expand", "expm1", "eye",
    "fake_channel_wise_dequantize_max_abs", "fake_channel_wise_quantize_abs_max",
    "fake_channel_wise_quantize_dequantize_abs_max", "fake_dequantize_max_abs",
    "fake_quantize_abs_max", "fake_quantize_dequantize_abs_max",
    "fake_quantize_dequantize_moving_average_abs_max", "fake_quantize_moving_average_abs_max",
    "fake_quantize_range_abs_max", "faster_tokenizer", "fc", "fft_c2c", "fft_c2r", "fft_r2c",
    "fill_any", "fill_constant_batch_size_like", "fill_diagonal", "fill_diagonal_tensor",
    "fill_zeros_like2", "flip", "fold", "frame", "fsp", "full_int_array",
    "fused_adam", "fused_elemwise_activation", "fused_elemwise_add_activation",
    "fused_embedding_fc_lstm", "fused_embedding_seq_pool", "fused_seqpool_cvm",
    "fused_softmax_mask", "fused_softmax_mask_upper_triangle", "fusion_gru", "fusion_lstm",
    "fusion_repeated_fc_relu", "fusion_seqconv_eltadd_relu", "fusion_seqexpand_concat_fc",
    "fusion_seqpool_concat", "fusion_seqpool_cvm_concat", "fusion_squared_mat_sub", "gather_tree",
    "gaussian_inplace", "generate_mask_labels", "get_float_status",
    "get_tensor_from_selected_rows", "grad_add", "graph_khop_sampler", "graph_sample_neighbors",
    "graph_send_recv", "graph_send_ue_recv", "graph_send_uv", "grid_sampler", "gru",
    "gumbel_softmax", "hash", "histogram", "i0", "i0e", "i1", "i1e",
    "imag", "index_add", "index_put", "index_sample", "index_select_strided",
    "inverse", "is_empty", "isclose", "isinf", "isnan", "kron",
    "lerp", "lgamma", "linear_interp", "linear_interp_v2", "log10",
    "log1p", "log2", "logcumsumexp", "logit", "logsigmoid", "logspace",
    "lookup_table_dequant", "lrn", "lstm", "lstsq", "lu", "lu_unpack",
    "masked_select", "matrix_power", "matrix_rank", "max_pool2d_with_index",
    "max_pool3d_with_index", "maxout", "merge_selected_rows", "meshgrid", "minus",
    "moving_average_abs_max_scale", "multi_dot", "multi_gru", "multiplex",
    "mv", "nextafter", "npu_identity", "overlap_add", "pad",
    "pixel_unshuffle", "polygamma", "pool3d",
    "pow2_decay_with_linear_warmup", "put_along_axis", "qr", "quantize",
    "quantize_linear", "real", "reciprocal",
    "repeat_interleave", "requantize", "reshape", "reverse", "roll", "rrelu", "scatter",
    "scatter_nd_add", "searchsorted", "segment_pool", "self_dp_attention", "selu", "set_value",
    "shadow_output", "shard_index", "similarity_focus",
    "sin", "sinh", "slogdeterminant", "soft_relu", "softplus",
    "softshrink", "softsign", "solve", "spp", "square",
    "stanh", "stft", "svd", "take_along_axis", "tan", "tanh_shrink",
    "temporal_shift", "tensor_unfold", "thresholded_relu",
    "trace", "transfer_layout", "triangular_solve", "tril_indices", "trilinear_interp",
    "trilinear_interp_v2", "triu_indices", "trunc", "unbind", "unfold", "unique_consecutive",
    "unique_with_counts", "unpool", "unpool3d", "unzip", "view_dtype", "view_shape",
    "viterbi_decode", "warprnnt", "weight_quantize", "weighted_sample_neighbors", "where_index",
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
