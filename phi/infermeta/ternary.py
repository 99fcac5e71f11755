"""InferMeta functions of three tensor inputs (Paddle's paddle/phi/infermeta/ternary.cc):
layer / group / instance norm, addmm, lerp, scatter, put_along_axis, ROI pooling, box coder ...
Dims of -1 are sizes unknown at compile time.
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta.funcs import (
    UNKNOWN,
    bad_argument,
    broadcast_dims,
    check_graph_indices,
    check_index_dtype,
    check_nms_inputs,
    check_roi_inputs,
    checked_axis,
    dims_match,
    dims_product,
    fmt_dims,
    meta_like,
    set_meta,
)

__all__ = [
    "accuracy_infer_meta", "addmm_infer_meta", "affine_channel_infer_meta",
    "arange_tensor_infer_meta", "box_coder_infer_meta", "group_norm_infer_meta",
    "instance_norm_infer_meta", "layer_norm_infer_meta", "lerp_infer_meta", "linspace_infer_meta",
    "multiclass_nms3_infer_meta", "nll_loss_raw_infer_meta", "put_along_axis_infer_meta",
    "roi_align_infer_meta", "roi_pool_infer_meta", "scatter_infer_meta",
    "scatter_nd_add_infer_meta", "send_urecv_infer_meta", "spectral_norm_infer_meta",
    "viterbi_decode_infer_meta",
]


# -- creation ----------------------------------------------------------------------------------

def _check_one(meta, what: str, op: str) -> None:
    n = 1
    for d in meta.dims:
        n = UNKNOWN if UNKNOWN in (n, d) else n * d
    if n not in (1, UNKNOWN):
        raise InvalidArgument(f"The numel of Input({what}) of {op} should be 1, but got {n}.")


def arange_tensor_infer_meta(start, end, step, out) -> None:
    """ArangeTensorInferMeta: one-element start / end / step; [-1] of start's dtype (the
    length depends on their values: the kernel decides)."""
    for m, what in ((start, "Start"), (end, "End"), (step, "Step")):
        _check_one(m, what, "range")
    out.set_dims((UNKNOWN,))
    out.set_dtype(start.dtype)


def linspace_infer_meta(start, stop, number, dtype, out) -> None:
    """LinspaceInferMeta: one-element start / stop / num; [-1] of ``dtype``."""
    for m, what in ((start, "Start"), (stop, "Stop"), (number, "Num")):
        _check_one(m, what, "linspace")
    out.set_dims((UNKNOWN,))
    out.set_dtype(dtype)


# -- convolution, pooling, normalization -------------------------------------------------------

# -- dropout, log_softmax ------------------------------------------------------------------------

def layer_norm_infer_meta(x, scale, bias, epsilon: float, begin_norm_axis: int, out, mean,
                          variance) -> None:
    """LayerNormInferMeta: y has x's meta; mean / variance have dims[:begin_norm_axis]
    (float32 for a float16 / bfloat16 x); scale and bias hold prod(dims[begin_norm_axis:])."""
    dims = tuple(x.dims)
    if not 0 < begin_norm_axis < len(dims):
        raise InvalidArgument(f"'begin_norm_axis' must be less than the dimensions of X, but "
                              f"received 'begin_norm_axis' = {begin_norm_axis}, X's rank "
                              f"{len(dims)}.")
    right = dims_product(dims[begin_norm_axis:])
    for name, p in (("Scale", scale), ("Bias", bias)):
        if p is None:
            continue
        n = dims_product(p.dims)
        if UNKNOWN not in (n, right) and n != right:
            raise InvalidArgument(f"The {name} of layer_norm must hold {right} values (the "
                                  f"normalized dims of X {fmt_dims(dims)}), but it has "
                                  f"{fmt_dims(p.dims)}.")
    out.share_meta(x)
    stats = DataType.FLOAT32 if x.dtype in (DataType.FLOAT16, DataType.BFLOAT16) else x.dtype
    for m in (mean, variance):
        m.set_dims(dims[:begin_norm_axis])
        m.set_dtype(stats)
        m.set_layout(x.layout)


def _check_channel_param(name: str, p, channels: int, op: str) -> None:
    if p is None:
        return
    if len(p.dims) != 1 or (UNKNOWN not in (p.dims[0], channels) and p.dims[0] != channels):
        raise InvalidArgument(f"The {name} of {op} must be 1-D with the {channels} channels of "
                              f"X, but received {fmt_dims(p.dims)}.")


def instance_norm_infer_meta(x, scale, bias, epsilon: float, y, saved_mean,
                             saved_variance) -> None:
    """InstanceNormInferMeta: x is 2-D to 5-D; y has x's meta; the saved statistics
    [N * C]."""
    dims = tuple(x.dims)
    if not 2 <= len(dims) <= 5:
        raise InvalidArgument(f"ShapeError: the dimension of input X must greater than or "
                              f"equal to 2 and less than or equal to 5, but received X's "
                              f"dimension {len(dims)}.")
    _check_channel_param("Scale", scale, dims[1], "instance_norm")
    _check_channel_param("Bias", bias, dims[1], "instance_norm")
    y.share_meta(x)
    for m in (saved_mean, saved_variance):
        m.set_dims((dims_product(dims[:2]),))
        m.set_dtype(x.dtype)
        m.set_layout(x.layout)


def group_norm_infer_meta(x, scale, bias, epsilon: float, groups: int, data_layout: str, y,
                          mean, variance) -> None:
    """GroupNormInferMeta: channels (dim 1, or the last for NHWC) divisible by ``groups``;
    y has x's meta; mean / variance [N, groups]."""
    dims = tuple(x.dims)
    if len(dims) < 2:
        raise InvalidArgument(f"The Input(X)'s dimension of Op(group_norm) must be greater "
                              f"than 1. But received: {len(dims)}-D Tensor.")
    channels = dims[-1] if data_layout == "NHWC" else dims[1]
    if groups < 1 or (channels != UNKNOWN and (groups > channels or channels % groups)):
        raise InvalidArgument(f"The Attr(groups) of Op(group_norm) must be in [1, {channels}] "
                              f"and divide the number of channels {channels}, but received "
                              f"groups {groups}.")
    _check_channel_param("Scale", scale, channels, "group_norm")
    _check_channel_param("Bias", bias, channels, "group_norm")
    y.share_meta(x)
    for m in (mean, variance):
        m.set_dims((dims[0], groups))
        m.set_dtype(x.dtype)
        m.set_layout(x.layout)


# -- indexing ----------------------------------------------------------------------------------

def put_along_axis_infer_meta(x, index, value, axis: int, reduce: str, include_self: bool,
                              out) -> None:
    """PutAlongAxisInferMeta: x's meta."""
    check_index_dtype("put_along_axis", "Index", index)
    if len(index.dims) != len(x.dims):
        raise InvalidArgument(f"put_along_axis: the rank of Index ({len(index.dims)}) must "
                              f"equal the rank of Input ({len(x.dims)}).")
    checked_axis(axis, len(x.dims), "put_along_axis")
    out.share_meta(x)


def scatter_infer_meta(x, index, updates, overwrite: bool, out) -> None:
    """ScatterInferMeta: x's meta; index 0-D, 1-D or [N, 1]; updates' trailing dims x's."""
    check_index_dtype("scatter", "Ids", index)
    idd, ud, xd = tuple(index.dims), tuple(updates.dims), tuple(x.dims)
    if not xd:
        raise InvalidArgument("scatter: Input(X) must be at least 1-D, but received a 0-D "
                              "tensor.")
    if len(idd) == 2 and idd[1] not in (1, UNKNOWN):
        raise InvalidArgument(f"The last dim of the index should be 1 when the index is a 2D "
                              f"tensor, but we get {idd[1]}.")
    if len(idd) > 2:
        raise InvalidArgument(f"The index should be a 0D or 1D tensor when the index is not a 2D "
                              f"tensor, but we get {len(idd)}.")
    if idd and len(ud) != len(xd):
        raise InvalidArgument(f"The input x and updates should have the same rank, but got "
                              f"{len(xd)} and {len(ud)}.")
    out.share_meta(x)


def scatter_nd_add_infer_meta(x, index, updates, out) -> None:
    """ScatterNdAddInferMeta: x's meta; updates = index.dims[:-1] + x.dims[index.dims[-1]:]."""
    check_index_dtype("scatter_nd_add", "Index", index)
    xd, idd, ud = tuple(x.dims), tuple(index.dims), tuple(updates.dims)
    if not idd:
        raise InvalidArgument("scatter_nd_add: Input(Index) must be at least 1-D, but received "
                              "a 0-D tensor.")
    if idd[-1] != UNKNOWN:
        if idd[-1] > len(xd):
            raise InvalidArgument(f"The last dimension of Input(Index)'s shape should be no "
                                  f"greater than the rank of Input(X), but received "
                                  f"{idd[-1]} and {len(xd)}.")
        want = idd[:-1] + xd[idd[-1]:]
        if UNKNOWN not in want + ud and want != ud:
            raise InvalidArgument(f"Input(Updates)'s shape should be {fmt_dims(want)}, but "
                                  f"received {fmt_dims(ud)}.")
    out.share_meta(x)


def send_urecv_infer_meta(x, src_index, dst_index, reduce_op: str, out_size, out,
                           dst_count) -> None:
    """SendURecvInferMeta: [-1, x.dims[1:]...] (rows: out_size or x's, decided by the kernel),
    int32 destination counts [-1]."""
    check_graph_indices(src_index, dst_index, "graph_send_recv")
    dims = tuple(x.dims)
    set_meta(out, (UNKNOWN, *dims[1:]), x.dtype, x.layout)
    set_meta(dst_count, (UNKNOWN,), DataType.INT32, x.layout)


# -- linear algebra, comparisons, cumulative ops, histograms -----------------------------------

def addmm_infer_meta(input, x, y, beta, alpha, out) -> None:
    """AddmmInferMeta: x [m, k] @ y [k, n] -> [m, n]; input 1-D or 2-D, broadcast to it."""
    if len(x.dims) != 2 or len(y.dims) != 2:
        raise bad_argument("addmm", f"Input(X) and Input(Y) must be 2-D, but received "
                                    f"{fmt_dims(x.dims)} and {fmt_dims(y.dims)}.")
    if len(input.dims) not in (1, 2):
        raise bad_argument("addmm", f"Input(Input) must be 1-D or 2-D, but received "
                                    f"{fmt_dims(input.dims)}.")
    if not dims_match(x.dims[1], y.dims[0]):
        raise bad_argument("addmm", f"X's width {x.dims[1]} must equal Y's height {y.dims[0]}.")
    out.set_dims((x.dims[0], y.dims[1]))
    out.set_dtype(input.dtype)
    out.set_layout(input.layout)


def lerp_infer_meta(x, y, weight, out) -> None:
    """LerpInferMeta: the broadcast of x, y and weight."""
    out.set_dims(broadcast_dims(broadcast_dims(x.dims, y.dims), weight.dims))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


# -- reductions, statistics, losses ------------------------------------------------------------

# -- reductions and norms -------------------------------------------------------------------------

def spectral_norm_infer_meta(weight, u, v, dim: int, power_iters: int, eps: float,
                             out) -> None:
    """SpectralNormInferMeta: Weight of rank 2..5, ``dim`` one of its axes; Out as Weight."""
    rank = len(weight.dims)
    if not 2 <= rank <= 5:
        raise InvalidArgument("spectral_norm: the rank of Input(Weights) should be in range "
                              f"[2, 5], but received {rank}.")
    if not 0 <= dim < rank:
        raise InvalidArgument(f"spectral_norm: attr(dim) should be in [0, {rank}), but "
                              f"received {dim}.")
    if power_iters < 0:
        raise InvalidArgument("spectral_norm: attr(power_iters) should be greater equal than "
                              f"0, but received {power_iters}.")
    h = weight.dims[dim]
    w = UNKNOWN
    if UNKNOWN not in weight.dims:
        w = 1
        for i, d in enumerate(weight.dims):
            w *= d if i != dim else 1
    for name, meta, want in (("U", u, h), ("V", v, w)):
        size = meta.dims[0] if len(meta.dims) == 1 else UNKNOWN
        if len(meta.dims) != 1 or (UNKNOWN not in (size, want) and size != want):
            raise InvalidArgument(f"spectral_norm: Input({name}) must be 1-D of size {want}, "
                                  f"but received {fmt_dims(meta.dims)}.")
    out.share_meta(weight)


# -- losses ----------------------------------------------------------------------------------------

def nll_loss_raw_infer_meta(input, label, weight, ignore_index: int, reduction: str, out,
                            total_weight) -> None:
    """NllLossRawInferMeta: X [N, C] with Label [N], or X [N, C, H, W] with Label [N, H, W];
    Out is Label's shape for "none", else 0-D; Total_weight 0-D."""
    check_index_dtype("nll_loss", "Label", label, ("int64",))  # the kernel reads int64_t
    rank = len(input.dims)
    if rank not in (2, 4):
        raise InvalidArgument("nll_loss: the rank of Input(X) should be 2 or 4 (NCHW), but "
                              f"received {rank}.")
    if len(label.dims) != rank - 1 or (input.dims[0] != label.dims[0]
                                        and UNKNOWN not in (input.dims[0], label.dims[0])):
        raise InvalidArgument("nll_loss: Input(Label) must be Input(X)'s shape without the "
                              f"class dim, but received X {fmt_dims(input.dims)} and Label "
                              f"{fmt_dims(label.dims)}.")
    if weight is not None and len(weight.dims) != 1:
        raise InvalidArgument("nll_loss: Input(Weight) should be 1-D, but received "
                              f"{fmt_dims(weight.dims)}.")
    if reduction not in ("none", "mean", "sum"):
        raise InvalidArgument("nll_loss: attribute reduction can only be none, mean or sum, but "
                              f"received {reduction!r}.")
    set_meta(out, label.dims if reduction == "none" else (), input.dtype, input.layout)
    set_meta(total_weight, (), input.dtype, input.layout)


# -- metrics ---------------------------------------------------------------------------------------

def accuracy_infer_meta(out, indices, label, accuracy, correct, total) -> None:
    """AccuracyInferMeta: Indices [N, k] and Label [N, 1]; Accuracy float32, Correct and Total
    int32, all 0-D."""
    check_index_dtype("accuracy", "Indices", indices, ("int64",))  # the kernel reads int64_t
    check_index_dtype("accuracy", "Label", label, ("int64",))
    if len(indices.dims) != 2 or len(label.dims) != 2:
        raise InvalidArgument("accuracy: Input(Indices) and Input(Label) must be 2-D, but "
                              f"received {fmt_dims(indices.dims)} and {fmt_dims(label.dims)}.")
    if label.dims[1] not in (1, UNKNOWN):
        raise InvalidArgument("accuracy: Input(Label) should be [N, 1], but received "
                              f"{fmt_dims(label.dims)}.")
    if UNKNOWN not in (indices.dims[0], label.dims[0]) and indices.dims[0] != label.dims[0]:
        raise InvalidArgument("accuracy: the first dims of Input(Indices) and Input(Label) must "
                              f"agree, but received {fmt_dims(indices.dims)} and "
                              f"{fmt_dims(label.dims)}.")
    set_meta(accuracy, (), DataType.FLOAT32)
    accuracy.share_lod(out)
    set_meta(correct, (), DataType.INT32)
    set_meta(total, (), DataType.INT32)


# -- vision ------------------------------------------------------------------------------------

def affine_channel_infer_meta(x, scale, bias, data_layout: str, out) -> None:
    """AffineChannelInferMeta: Scale and Bias are [C] (C: dim 1 for NCHW, else the last)."""
    dims = tuple(x.dims)
    if len(dims) < 2:
        raise InvalidArgument(f"affine_channel: Input(X) must have rank >= 2, got "
                              f"{fmt_dims(dims)}.")
    c = dims[1] if data_layout == "NCHW" else dims[-1]
    for slot, m in (("Scale", scale), ("Bias", bias)):
        if len(m.dims) != 1 or (UNKNOWN not in (c, m.dims[0]) and m.dims[0] != c):
            raise InvalidArgument(f"affine_channel: Input({slot}) must be [{c}] (the channels "
                                  f"of X {fmt_dims(dims)}), got {fmt_dims(m.dims)}.")
    meta_like(x, out, dims)


# -- detection ---------------------------------------------------------------------------------

def roi_align_infer_meta(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale,
                         sampling_ratio, aligned, out) -> None:
    """[num_rois, C, pooled_height, pooled_width]."""
    check_roi_inputs("roi_align", x, boxes, pooled_height, pooled_width)
    set_meta(out, (boxes.dims[0], x.dims[1], pooled_height, pooled_width), x.dtype)


def roi_pool_infer_meta(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale, out,
                        arg_max) -> None:
    """[num_rois, C, pooled_height, pooled_width]; Argmax int64 alike."""
    check_roi_inputs("roi_pool", x, boxes, pooled_height, pooled_width)
    dims = (boxes.dims[0], x.dims[1], pooled_height, pooled_width)
    set_meta(out, dims, x.dtype)
    set_meta(arg_max, dims, DataType.INT64)


def multiclass_nms3_infer_meta(bboxes, scores, rois_num, score_threshold, nms_top_k,
                               keep_top_k, nms_threshold, normalized, nms_eta,
                               background_label, out, index, nms_rois_num) -> None:
    """Out [-1, 6], Index [-1, 1] int32, NmsRoisNum [-1] int32."""
    check_nms_inputs("multiclass_nms3", bboxes, scores, polygons=True)
    box = bboxes.dims[2]
    set_meta(out, (-1, box + 2 if box > 0 else -1), bboxes.dtype)
    set_meta(index, (-1, 1), DataType.INT32)
    set_meta(nms_rois_num, (-1,), DataType.INT32)


def box_coder_infer_meta(prior_box, prior_box_var, target_box, code_type, box_normalized,
                         axis, variance, output_box) -> None:
    """encode: [N, M, 4]; decode: TargetBox's dims."""
    if len(prior_box.dims) != 2 or prior_box.dims[1] not in (4, -1):
        raise InvalidArgument(f"box_coder: PriorBox must be [M, 4], got dims "
                              f"{list(prior_box.dims)}.")
    if prior_box_var is not None and (len(prior_box_var.dims) not in (1, 2)
                                      or prior_box_var.dims[-1] not in (4, -1)):
        raise InvalidArgument(f"box_coder: PriorBoxVar must be [M, 4] or [4], got dims "
                              f"{list(prior_box_var.dims)}.")
    rank = 2 if code_type == "encode_center_size" else 3
    if len(target_box.dims) != rank or target_box.dims[-1] not in (4, -1):
        raise InvalidArgument(f"box_coder: TargetBox must be {rank}-D with a last dim of 4 for "
                              f"{code_type}, got dims {list(target_box.dims)}.")
    if code_type == "encode_center_size":
        dims = (target_box.dims[0], prior_box.dims[0], 4)
    else:
        dims = tuple(target_box.dims)
    set_meta(output_box, dims, target_box.dtype)


# -- fused and quantization ops ----------------------------------------------------------------

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
