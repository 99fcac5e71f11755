"""InferMeta of the fused ops (Paddle's paddle/phi/infermeta/fusion.cc): fc, fused_softmax_mask*,
self_dp_attention and the fusion_* ops.

Dims of -1 are sizes unknown at compile time and pass through.
"""

from __future__ import annotations

from phi.core.errors import InvalidArgument
from phi.infermeta.funcs import fmt_dims, prod, set_meta

__all__ = [
    "fc_infer_meta", "fused_softmax_mask_infer_meta", "fusion_gru_infer_meta",
    "fusion_repeated_fc_relu_infer_meta", "fusion_seqconv_eltadd_relu_infer_meta",
    "fusion_seqexpand_concat_fc_infer_meta", "fusion_squared_mat_sub_infer_meta",
    "self_dp_attention_infer_meta",
]


# -- sequences ---------------------------------------------------------------------------------

def _need_rank(op: str, slot: str, meta, ranks: tuple[int, ...]) -> tuple:
    d = tuple(meta.dims)
    if len(d) not in ranks:
        raise InvalidArgument(f"{op}: Input({slot}) must be {' or '.join(map(str, ranks))}-D, "
                              f"got {list(d)}.")
    return d


def fusion_seqexpand_concat_fc_infer_meta(x: list, fc_weight, fc_bias, fc_activation: str,
                                          out, fc_out) -> None:
    """FusionSeqExpandConcatFCInferMeta: Out [T, D] with X[0]'s LoD, FCOut [-1, D]."""
    if len(x) < 2:
        raise InvalidArgument(f"fusion_seqexpand_concat_fc: Inputs(X) of "
                              f"FusionSeqExpandConcatFCOp should larger than 1, got {len(x)}.")
    op = "fusion_seqexpand_concat_fc"
    for i, t in enumerate(x):
        _need_rank(op, f"X[{i}]", t, (2,))
    dw = _need_rank(op, "FCWeight", fc_weight, (2,))
    set_meta(out, (next(iter(x[0].dims)), dw[1]), x[0].dtype)
    out.share_lod(x[0])
    set_meta(fc_out, (-1, dw[1]), x[0].dtype)


def fusion_seqconv_eltadd_relu_infer_meta(x, filter, bias, context_length: int,
                                          context_start: int, context_stride: int, out,
                                          col_mat) -> None:
    """FusionSeqConvEltAddReluInferMeta: Out [T, N] with X's LoD, ColMat [T, filter rows]."""
    op = "fusion_seqconv_eltadd_relu"
    xd, fd = _need_rank(op, "X", x, (2,)), _need_rank(op, "Filter", filter, (2,))
    set_meta(out, (xd[0], fd[1]), x.dtype)
    out.share_lod(x)
    set_meta(col_mat, (xd[0], fd[0]), x.dtype)


def fusion_gru_infer_meta(x, h0, weight_x, weight_h, bias, activation: str,
                          gate_activation: str, is_reverse: bool, use_seq: bool,
                          origin_mode: bool, use_mkldnn: bool, mkldnn_data_type: str,
                          scale_data: float, shift_data: float, scale_weights: list,
                          force_fp32_output: bool, reordered_h0, xx, batched_input,
                          batched_out, hidden) -> None:
    """FusionGRUInferMeta: Hidden [T, D] with X's LoD, XX [T, 3D] (batch mode with M <= 3D:
    [T, M], X reordered), the batch outputs [T, 3D] / [T, D]."""
    op = "fusion_gru"
    xd, wd = _need_rank(op, "X", x, (2,)), _need_rank(op, "WeightH", weight_h, (2,))
    _need_rank(op, "WeightX", weight_x, (2,))
    t, dim = xd[0], wd[0]
    set_meta(hidden, (t, dim), x.dtype)
    hidden.share_lod(x)
    xx_width = xd[1] if not use_seq and xd[1] <= 3 * dim else 3 * dim
    set_meta(xx, (t, xx_width), x.dtype)
    xx.share_lod(x)
    if not use_seq:
        set_meta(batched_input, (t, 3 * dim), x.dtype)
        set_meta(batched_out, (t, dim), x.dtype)
        if h0 is not None:
            set_meta(reordered_h0, tuple(h0.dims), x.dtype)


# -- fused and quantization ops ----------------------------------------------------------------

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
