"""InferMeta of the quantization and fused inference ops that run phi kernels
(dequantize_linear, weight_quantize, fc, fused_softmax_mask*, self_dp_attention, fusion_*).

Dims of -1 are sizes unknown at compile time and pass through.
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import fmt_dims, prod, set_meta

__all__ = ["dequantize_linear_infer_meta"]




def dequantize_linear_infer_meta(x, scale, zero_point, in_accum, in_state, quant_axis: int,
                                 bit_length: int, round_type: int, is_test: bool,
                                 only_observer: bool, y, out_state, out_accum, out_scale
                                 ) -> None:
    """QuantizeLinearOp::InferShape: Y has X's dims and Scale's float type (an int8 X
    dequantizes to Scale's dtype); the observer outputs are [1] or one per channel."""
    if quant_axis >= 0 and len(x.dims) <= quant_axis:
        raise InvalidArgument(f"dequantize_linear: quant_axis {quant_axis} is out of range for "
                              f"X of dims {fmt_dims(x.dims)}.")
    dtype = scale.dtype if scale is not None and scale.dtype in (
        DataType.FLOAT32, DataType.FLOAT64, DataType.FLOAT16) else x.dtype
    set_meta(y, x.dims, x.dtype if only_observer else dtype, x.layout)
    set_meta(out_state, (1,), dtype)
    set_meta(out_accum, (1,), dtype)
    set_meta(out_scale, (1,) if quant_axis < 0 else (x.dims[quant_axis],), dtype)


def weight_quantize_infer_meta(x, algo: str, arch: int, out, scale) -> None:
    """WeightQuantizeInferMeta: x [k, n] with k % 64 == 0 and n % 16 == 0 -> out int8 [n, k]
    ([n / 2, k] for weight_only_int4), scale [n] in x's dtype."""
    if arch not in (70, 75, 80, 86):
        raise InvalidArgument("weight_quantize: currently, arch only support 70, 75, 80, 86, "
                              f"got {arch}.")
    if len(x.dims) != 2:
        raise InvalidArgument(f"weight_quantize: the x tensor of quant op must be 2D, but got "
                              f"dims {fmt_dims(x.dims)}.")
    k, n = x.dims
    if k != -1 and k % 64:
        raise InvalidArgument(f"weight_quantize: the first dimension of input must be "
                              f"divisible by 64, but got[{k}]")
    if n != -1 and n % 16:
        raise InvalidArgument(f"weight_quantize: the second dimension of input must be "
                              f"divisible by 16, but got[{n}]")
    rows = (n // 2 if n != -1 else -1) if algo == "weight_only_int4" else n
    set_meta(out, (rows, k), DataType.INT8, x.layout)
    set_meta(scale, (n,), x.dtype, x.layout)


__all__ += ["weight_quantize_infer_meta"]


def fc_infer_meta(input, w, bias, in_num_col_dims: int, activation_type: str, use_mkldnn: bool,
                  padding_weights: bool, use_quantizer: bool, mkldnn_data_type: str,
                  scale_in: float, scale_weights: list, scale_out: float,
                  force_fp32_output: bool, out) -> None:
    """FCInferMeta: Out = Input dims[:in_num_col_dims] + [N] (N = W's columns, minus the 4
    padding columns with padding_weights); W is 2-D and K matches."""
    if len(w.dims) != 2:
        raise InvalidArgument(f"fc: the input Weight of fc is expected to be a 2-D tensor, but "
                              f"received dims {fmt_dims(w.dims)}.")
    rank = len(input.dims)
    if not 1 <= in_num_col_dims < rank + (rank == 0):
        raise InvalidArgument(f"fc: in_num_col_dims ({in_num_col_dims}) must be in [1, rank of "
                              f"Input) for Input dims {fmt_dims(input.dims)}.")
    pad = 4 if padding_weights else 0
    k, n = w.dims[0] - pad if w.dims[0] != -1 else -1, w.dims[1] - pad if w.dims[1] != -1 else -1
    tail = input.dims[in_num_col_dims:]
    in_k = -1 if any(d == -1 for d in tail) else prod(tail)
    if -1 not in (k, in_k) and k != in_k:
        raise InvalidArgument(f"fc: Input's flattened width {in_k} (dims {fmt_dims(input.dims)}, "
                              f"in_num_col_dims {in_num_col_dims}) must equal Weight's rows {k}.")
    if bias is not None and n != -1:
        bd = tuple(bias.dims)
        ok = (len(bd) == 1 and bd[0] in (n, -1)) or (len(bd) == 2 and bd[0] in (1, -1)
                                                       and bd[1] in (n, -1))
        if not ok:
            raise InvalidArgument(f"fc: Bias dims {fmt_dims(bd)} must be [{n}] or [1, {n}].")
    if activation_type not in ("", "relu"):
        raise InvalidArgument(f"fc: activation_type {activation_type!r} is not supported on CPU "
                              "(expected '' or 'relu').")
    set_meta(out, (*input.dims[:in_num_col_dims], n), input.dtype, input.layout)
    out.share_lod(input)  # fc's InferShape: ShareLoD("Input", "Out")




def fused_softmax_mask_infer_meta(x, mask, out) -> None:
    """SoftmaxMaskFuseInferMeta: X and Mask 4-D, Mask [B, 1, S, S] broadcast over heads."""
    if len(x.dims) != 4 or len(mask.dims) != 4:
        raise InvalidArgument(f"fused_softmax_mask: X and Mask must be 4-D, got {fmt_dims(x.dims)}"
                              f" and {fmt_dims(mask.dims)}.")
    if mask.dims[1] not in (1, -1):
        raise InvalidArgument(f"fused_softmax_mask: Mask's second dim must be 1, got "
                              f"{fmt_dims(mask.dims)}.")
    set_meta(out, x.dims, x.dtype, x.layout)


def self_dp_attention_infer_meta(x, alpha: float, head_number: int, out) -> None:
    """SelfDPAttenInferMeta: X [B, S, 3, H, D] -> [B, S, H * D]."""
    if len(x.dims) != 5 or x.dims[2] not in (3, -1):
        raise InvalidArgument(f"self_dp_attention: X must be [batch, seq, 3, heads, head_size], "
                              f"got {fmt_dims(x.dims)}.")
    b, s, _, h, d = x.dims
    set_meta(out, (b, s, -1 if -1 in (h, d) else h * d), x.dtype, x.layout)


def fusion_repeated_fc_relu_infer_meta(x, w: list, bias: list, relu_out: list, out) -> None:
    """FusionRepeatedFCReluInferMeta: X 2-D, W_i 2-D chained, one Bias per W."""
    if len(x.dims) != 2:
        raise InvalidArgument(f"fusion_repeated_fc_relu: X must be 2-D, got {fmt_dims(x.dims)}.")
    if len(w) < 2 or len(bias) != len(w):
        raise InvalidArgument(f"fusion_repeated_fc_relu: needs at least 2 W and as many Bias, got "
                              f"{len(w)} and {len(bias)}.")
    rows, width = x.dims[0], x.dims[1]
    for i, wi in enumerate(w):
        if len(wi.dims) != 2 or (-1 not in (width, wi.dims[0]) and width != wi.dims[0]):
            raise InvalidArgument(f"fusion_repeated_fc_relu: W[{i}] dims {fmt_dims(wi.dims)} "
                                  f"do not follow a width of {width}.")
        width = wi.dims[1]
        if i < len(w) - 1 and i < len(relu_out):
            set_meta(relu_out[i], (rows, width), x.dtype, x.layout)
    set_meta(out, (rows, width), x.dtype, x.layout)


def fusion_squared_mat_sub_infer_meta(x, y, scalar: float, squared_x, squared_y, squared_xy,
                                      out) -> None:
    """FusionSquaredMatSubInferMeta: X [M, K], Y [K, N] -> [M, N] (and the squares)."""
    if len(x.dims) != 2 or len(y.dims) != 2:
        raise InvalidArgument(f"fusion_squared_mat_sub: X and Y must be 2-D, got "
                              f"{fmt_dims(x.dims)} and {fmt_dims(y.dims)}.")
    if -1 not in (x.dims[1], y.dims[0]) and x.dims[1] != y.dims[0]:
        raise InvalidArgument(f"fusion_squared_mat_sub: X's columns {x.dims[1]} must equal Y's "
                              f"rows {y.dims[0]}.")
    set_meta(squared_x, x.dims, x.dtype, x.layout)
    set_meta(squared_y, y.dims, x.dtype, x.layout)
    set_meta(squared_xy, (x.dims[0], y.dims[1]), x.dtype, x.layout)
    set_meta(out, (x.dims[0], y.dims[1]), x.dtype, x.layout)


__all__ += ["fc_infer_meta", "fused_softmax_mask_infer_meta", "fusion_repeated_fc_relu_infer_meta",
            "fusion_squared_mat_sub_infer_meta", "self_dp_attention_infer_meta"]


def viterbi_decode_infer_meta(input, transition, length, include_bos_eos_tag: bool, scores,
                              path) -> None:
    """ViterbiDecodeInferMeta: Input [B, T, N], Transition [N, N], Length [B] -> Scores [B],
    Path [B, max(Length)] (known only at run time)."""
    if len(input.dims) != 3:
        raise InvalidArgument(f"viterbi_decode: the rank of Input should be 3, got "
                              f"{fmt_dims(input.dims)}.")
    if len(transition.dims) != 2 or len(length.dims) != 1:
        raise InvalidArgument(f"viterbi_decode: Transition must be 2-D and Length 1-D, got "
                              f"{fmt_dims(transition.dims)} and {fmt_dims(length.dims)}.")
    n = input.dims[2]
    if -1 not in (n, transition.dims[0]) and transition.dims[0] != n:
        raise InvalidArgument(f"viterbi_decode: Transition dims {fmt_dims(transition.dims)} do "
                              f"not match the {n} tags of Input.")
    if length.dtype is not DataType.INT64:
        raise InvalidArgument(f"viterbi_decode: Length must be int64, got {length.dtype}.")
    set_meta(scores, (input.dims[0],), input.dtype, input.layout)
    set_meta(path, (input.dims[0], -1), DataType.INT64, input.layout)


__all__ += ["viterbi_decode_infer_meta"]


def fused_adam_infer_meta(params: list, grads: list, learning_rate, moments1: list,
                          moments2: list, beta1_pows: list, beta2_pows: list, master_params,
                          skip_update, beta1, beta2, epsilon, chunk_size: int,
                          weight_decay: float, use_adamw: bool, multi_precision: bool,
                          use_global_beta_pow: bool, params_out: list, moments1_out: list,
                          moments2_out: list, beta1_pows_out: list, beta2_pows_out: list,
                          master_params_out: list) -> None:
    """FusedAdamInferMeta: every output as its input (ParamsOut as Params, ...)."""
    for outs, ins in ((params_out, params), (moments1_out, moments1), (moments2_out, moments2),
                      (beta1_pows_out, beta1_pows), (beta2_pows_out, beta2_pows),
                      (master_params_out, master_params or [])):
        for o, i in zip(outs, ins, strict=False):
            set_meta(o, i.dims, i.dtype, i.layout)


__all__ += ["fused_adam_infer_meta"]
