"""InferMeta functions of four or more tensor inputs, or of a list of tensors (Paddle's
paddle/phi/infermeta/multiary.cc): concat, stack, add_n, where, batch_norm, the optimizers,
interpolate, rnn, the detection and sequence losses ...  Dims of -1 are sizes unknown at compile
time.
"""

from __future__ import annotations

import math

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta.funcs import (
    MetaConfig,
    UNKNOWN,
    bad_argument,
    batch_norm_channels,
    broadcast_tensors_out_dims,
    check_graph_indices,
    check_index_dtype,
    check_roi_inputs,
    check_same_dims,
    concat_axis,
    fmt_dims,
    interp_channel_last,
    interp_out_sizes,
    is_compile_time_tensor_attr,
    meta_like,
    multi_dot_out_dims,
    outputs_like,
    set_meta,
)

__all__ = [
    "adadelta_infer_meta", "adagrad_infer_meta", "adam_infer_meta", "adamax_infer_meta",
    "adamw_infer_meta", "addn_infer_meta", "auc_infer_meta", "average_accumulates_infer_meta",
    "batch_norm_infer_infer_meta", "batch_norm_infer_meta", "bilinear_infer_meta",
    "broadcast_tensors_infer_meta", "check_finite_and_unscale_infer_meta",
    "check_memory_continue_infer_meta", "coalesce_tensor_infer_meta", "concat_infer_meta",
    "concat_lod", "concat_out_dims", "decayed_adagrad_infer_meta", "deformable_conv_infer_meta",
    "dequantize_linear_infer_meta", "dgc_momentum_infer_meta", "edit_distance_infer_meta",
    "float_status_infer_meta", "fused_adam_infer_meta", "generate_proposals_infer_meta",
    "graph_sample_neighbors_infer_meta", "hsigmoid_loss_infer_meta", "index_put_infer_meta",
    "interpolate_infer_meta", "lamb_infer_meta", "lars_momentum_infer_meta", "logspace_infer_meta",
    "merged_adam_infer_meta", "merged_momentum_infer_meta", "meshgrid_infer_meta",
    "momentum_infer_meta", "multi_dot_infer_meta", "multiplex_infer_meta", "nop_infer_meta",
    "psroi_pool_infer_meta", "rmsprop_infer_meta", "rnn_infer_meta", "send_uerecv_infer_meta",
    "send_uvinfer_meta", "sgd_infer_meta", "share_buffer_infer_meta",
    "sigmoid_cross_entropy_with_logits_infer_meta", "stack_infer_meta",
    "update_loss_scaling_infer_meta", "warpctc_infer_meta", "warprnnt_infer_meta",
    "weighted_sample_neighbors_infer_meta", "where_infer_meta", "yolo_loss_infer_meta",
]


def concat_out_dims(dims_list, axis: int) -> tuple[int, ...]:
    """Paddle's ComputeAndCheckShape: sizes add up on ``axis``, the other dims must agree.

    -1 (unknown) makes the axis size unknown and is filled from a known input elsewhere.
    """
    first = tuple(dims_list[0])
    out = list(first)
    for i, dims in enumerate(dims_list[1:], start=1):
        dims = tuple(dims)
        if len(dims) != len(first):
            raise InvalidArgument(
                f"The shape of input[0] and input[{i}] is expected to be equal. But received "
                f"input[0]'s shape = {fmt_dims(first)}, input[{i}]'s shape = {fmt_dims(dims)}."
            )
        for j, d in enumerate(dims):
            if j == axis:
                out[j] = UNKNOWN if UNKNOWN in (out[j], d) else out[j] + d
            elif out[j] >= 0 and d >= 0:
                if out[j] != d:
                    raise InvalidArgument(
                        f"The {j}-th dimension of input[0] and input[{i}] is expected to be "
                        f"equal. But received input[0]'s shape = {fmt_dims(first)}, input[{i}]'s"
                        f" shape = {fmt_dims(dims)}."
                    )
            elif out[j] == UNKNOWN:
                out[j] = d
    return tuple(out)


def concat_infer_meta(x: list, axis, out, *, config: MetaConfig | None = None) -> None:
    """ConcatInferMeta: :func:`concat_out_dims` along :func:`concat_axis`; x[0]'s dtype/layout."""
    if not x:
        raise InvalidArgument("The size of input meta vector should be greater than 0.")
    first = x[0]
    rank = len(first.dims)
    if is_compile_time_tensor_attr(axis, config):
        out.set_dims((UNKNOWN,) * rank)  # AxisTensor at compile time: the axis is unknown
    else:
        ax = concat_axis(rank, axis)
        out.set_dims(concat_out_dims([t.dims for t in x], ax))
    out.set_dtype(first.dtype)
    out.set_layout(first.layout)
    out.share_lod(first)
    if getattr(first, "lod", ()) and (config is None or config.is_runtime) and ax == 0:
        out.lod = concat_lod([t.lod for t in x])


def concat_lod(lods) -> tuple:
    """The LoD Paddle's concat kernel gives along axis 0: the first input's, each later input's
    sequences appended, when every input has a LoD of as many levels (none when one lacks a
    LoD: the first input's is kept as it is)."""
    out = [list(level) for level in lods[0]]
    for i, lod in enumerate(lods[1:], 1):
        if not lod:
            return lods[0]
        if len(lod) != len(out):
            raise InvalidArgument(f"concat: The lod level of all input LoDTensors should be "
                                  f"same. Maybe different lod level of input LoDTensors can "
                                  f"concat, it is not supported currently. The lod level of "
                                  f"{i}th input is {len(lod)}, the lod level of 1st input is "
                                  f"{len(out)}.")
    for lod in lods[1:]:
        for level, offsets in zip(out, lod, strict=True):
            base = level[-1]
            level.extend(base + b - offsets[0] for b in offsets[1:])
    return tuple(tuple(level) for level in out)


def where_infer_meta(condition, x, y, out) -> None:
    """WhereInferMeta (2.6.2): condition, x and y must have the same dims (no broadcasting;
    paddle.where broadcasts in Python before appending the op); the output is x's meta."""
    cond_dims, x_dims, y_dims = tuple(condition.dims), tuple(x.dims), tuple(y.dims)
    if cond_dims != x_dims:
        raise InvalidArgument(
            "The dims of Inputs(Condition) and Inputs(X) should be same. But received "
            f"Condition's shape is {fmt_dims(cond_dims)}, X's shape is {fmt_dims(x_dims)}"
        )
    if x_dims != y_dims:
        raise InvalidArgument(
            "The dims of Inputs(X) and Inputs(Y) should be same. But received X's shape is "
            f"{fmt_dims(x_dims)}, Y's shape is {fmt_dims(y_dims)}"
        )
    out.share_meta(x)


def stack_infer_meta(x: list, axis: int, out) -> None:
    """StackInferMeta: the inputs' common dims with len(x) inserted at ``axis``."""
    if not x:
        raise InvalidArgument("Number of Inputs(x) must be larger than 0, but received value "
                              "is:0.")
    dims = tuple(x[0].dims)
    for i, m in enumerate(x[1:], 1):
        if tuple(m.dims) != dims and UNKNOWN not in m.dims and UNKNOWN not in dims:
            raise InvalidArgument(
                "Dims of all Inputs(X) must be the same, but received input 0 dim is:"
                f"{fmt_dims(dims)} not equal to input {i} dim:{fmt_dims(m.dims)}.")
    rank = len(dims) + 1
    if not -rank <= axis < rank:
        raise InvalidArgument(f"Attr(axis) must be inside [-{rank}, {rank}), but received axis "
                              f"is:{axis}.")
    axis = axis + rank if axis < 0 else axis
    out.set_dims((*dims[:axis], len(x), *dims[axis:]))
    out.set_dtype(x[0].dtype)
    out.set_layout(x[0].layout)
    out.share_lod(x[0])


def addn_infer_meta(x: list, out) -> None:
    """AddNInferMeta: the dims of the first input holding elements (all such inputs agree);
    its dtype."""
    if not x:
        raise InvalidArgument("The input tensor X's dimensions of SumOp should be larger than "
                              "0. But received X's dimensions 0.")
    dims = None
    for i, m in enumerate(x):
        d = tuple(m.dims)
        n = 1
        for v in d:
            n *= v
        if n == 0 and UNKNOWN not in d:
            continue
        if dims is None:
            dims = d
        elif d != dims and UNKNOWN not in d and UNKNOWN not in dims:
            raise InvalidArgument(
                "The input tensor X of SumOp must have same shape. But received X[0]'s shape = "
                f"{fmt_dims(dims)}, X[{i}]'s shape = {fmt_dims(d)}.")
    # every input empty: Paddle's in_dim stays an empty DDim, a 0-D output (checked with the
    # wheel: two [0, 3] inputs sum to a 0-D zero)
    out.set_dims(dims if dims is not None else ())
    out.set_dtype(x[0].dtype)
    out.set_layout(x[0].layout)
    out.share_lod(x[0])


def rnn_infer_meta(x, pre_state: list, weight_list: list, sequence_length, dropout_prob: float,
                   is_bidirec: bool, input_size: int, hidden_size: int, num_layers: int,
                   mode: str, seed: int, is_test: bool, out, dropout_state, state: list,
                   reserve) -> None:
    """RnnInferMeta: Out [T, B, H * dirs]; State as PreState; DropoutState and Reserve carry
    no data here (Paddle fills them for its backward pass)."""
    if len(x.dims) != 3:
        raise InvalidArgument(f"The rank of Input in RNN must be 3, but received Input's "
                              f"dims {list(x.dims)}.")
    if x.dims[2] not in (-1, input_size):
        raise InvalidArgument(f"rnn: Input's last dim {x.dims[2]} must equal input_size "
                              f"{input_size}.")
    dirs = 2 if is_bidirec else 1
    out.set_dims((x.dims[0], x.dims[1], hidden_size * dirs))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    for s, p in zip(state, pre_state, strict=False):
        s.set_dims(tuple(p.dims))
        s.set_dtype(x.dtype)
        s.set_layout(x.layout)
    dropout_state.set_dims((0,))
    dropout_state.set_dtype(DataType.UINT8)
    reserve.set_dims((0,))
    reserve.set_dtype(x.dtype)


# -- convolution, pooling, normalization -------------------------------------------------------

# -- batch_norm ----------------------------------------------------------------------------------

def batch_norm_infer_meta(x, mean, variance, scale, bias, is_test: bool, momentum: float,
                          epsilon: float, data_layout: str, use_global_stats: bool,
                          trainable_statistics: bool, y, mean_out, variance_out, saved_mean,
                          saved_variance, reserve_space=None, *,
                          config: MetaConfig | None = None) -> None:
    """BatchNormInferMeta: y like x; the statistics [C].

    Paddle leaves the dtype of MeanOut/VarianceOut to the in-place sharing with Mean/Variance
    and SavedMean/SavedVariance unset; here they are set (the kernel writes them in x's dtype).
    ReserveSpace (never written on CPU) is [-1] at compile time and [0] at run time.
    """
    runtime = config is None or config.is_runtime
    x_dims = list(x.dims)
    for d in x_dims:
        if d != UNKNOWN and d <= 0:
            raise InvalidArgument(
                "Each dimension of input tensor is expected to be -1 or a positive number, but "
                f"recieved {d}. Input's shape is {fmt_dims(x_dims)}."
            )
    if not 2 <= len(x_dims) <= 5:
        raise InvalidArgument(
            "ShapeError: the dimension of input X must be in [2, 5]. But received: the shape "
            f"of input X = {fmt_dims(x_dims)}, the dimension of input X =[{len(x_dims)}]"
        )
    c, _ = batch_norm_channels(x_dims, data_layout)
    # mean / variance: Paddle checks only scale and bias and its kernel then reads out of
    # bounds for a wrong-sized statistic; we refuse it (the same check)
    for name, meta in (("scale", scale), ("bias", bias), ("mean", mean),
                       ("variance", variance)):
        if meta is None:
            continue
        dims = list(meta.dims)
        if not runtime and any(d <= 0 for d in dims):
            continue
        if len(dims) != 1:
            raise InvalidArgument(
                f"ShapeError: the dimension of {name} must equal to 1. But received: the shape "
                f"of {name} is {fmt_dims(dims)}, the dimension of {name} is [{len(dims)}]"
            )
        if c != UNKNOWN and dims[0] != c:
            raise InvalidArgument(
                f"ShapeError: the shape of {name} must equal to [{c}] But received: the shape "
                f"of {name} is [{dims[0]}]"
            )
    y.set_dims(x_dims)
    y.set_dtype(x.dtype)
    y.set_layout(x.layout)
    y.share_lod(x)
    for meta, like in ((mean_out, mean), (variance_out, variance)):
        meta.set_dims((c,))
        meta.set_dtype(like.dtype)
    for meta in (saved_mean, saved_variance):
        if meta is not None:
            meta.set_dims((c,))
            meta.set_dtype(x.dtype)
    if reserve_space is not None:
        reserve_space.set_dims((0,) if runtime else (UNKNOWN,))
        reserve_space.set_dtype(x.dtype)


def batch_norm_infer_infer_meta(x, mean, variance, scale, bias, momentum: float,
                                epsilon: float, data_layout: str, y, mean_out, variance_out, *,
                                config: MetaConfig | None = None) -> None:
    """BatchNormInferInferMeta: BatchNormInferMeta in test mode, without the saved outputs."""
    batch_norm_infer_meta(x, mean, variance, scale, bias, True, momentum, epsilon, data_layout,
                          False, False, y, mean_out, variance_out, None, None, None,
                          config=config)


# -- manipulation and creation -----------------------------------------------------------------

# -- broadcast_tensors / meshgrid / unbind -----------------------------------------------------

def broadcast_tensors_infer_meta(x: list, out: list) -> None:
    """BroadcastTensorsInferMeta: every output has the broadcast dims of all inputs."""
    dims = broadcast_tensors_out_dims([tuple(m.dims) for m in x])
    for src, o in zip(x, out, strict=False):
        meta_like(src, o, dims)


def meshgrid_infer_meta(x: list, out: list) -> None:
    """MeshgridInferMeta: out[i] has dims [n_0, ..., n_k] (a 0-D input counts as 1)."""
    sizes = []
    for i, m in enumerate(x):
        dims = tuple(m.dims)
        if len(dims) > 1:
            raise InvalidArgument(f"meshgrid: Input(X)[{i}] must be 0-D or 1-D, but its dims "
                                  f"are {fmt_dims(dims)}.")
        sizes.append(dims[0] if dims else 1)
    for src, o in zip(x, out, strict=False):
        meta_like(src, o, sizes)


# -- logspace / is_empty / transfer_layout -----------------------------------------------------

def logspace_infer_meta(start, stop, number, base, dtype: DataType, out) -> None:
    """LogspaceInferMeta: one-element inputs; [-1] of ``dtype`` (the kernel decides)."""
    for m, what in ((start, "Start"), (stop, "Stop"), (number, "Num"), (base, "Base")):
        n = math.prod(tuple(m.dims)) if UNKNOWN not in tuple(m.dims) else UNKNOWN
        if n not in (1, UNKNOWN):
            raise InvalidArgument(f"The size of Input({what}) of logspace should be 1, but got "
                                  f"{n}.")
    out.set_dims((UNKNOWN,))
    out.set_dtype(dtype)


# -- indexing ----------------------------------------------------------------------------------

def _broadcast(a, b, op: str) -> tuple[int, ...]:
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for p, q in zip(a, b, strict=True):
        if p == q or q == 1:
            out.append(p)
        elif p == 1:
            out.append(q)
        elif UNKNOWN in (p, q):
            out.append(UNKNOWN)
        else:
            raise InvalidArgument(f"{op}: the feature dims {fmt_dims(a)} and {fmt_dims(b)} do not "
                                  "broadcast.")
    return tuple(out)


def index_put_infer_meta(x, indices, value, accumulate: bool, out) -> None:
    """IndexPutInferMeta: x's meta; at most rank(x) index tensors."""
    if len(x.dims) > 6:
        raise InvalidArgument(f"index_put: the rank of x must be <= 6, but received "
                              f"{len(x.dims)}.")
    if len(indices) > max(len(x.dims), 1):
        raise InvalidArgument(f"index_put: {len(indices)} index tensors for a tensor of rank "
                              f"{len(x.dims)}.")
    out.share_meta(x)


def send_uerecv_infer_meta(x, y, src_index, dst_index, message_op: str, reduce_op: str,
                            out_size, out, dst_count) -> None:
    """SendUERecvInferMeta: [-1] + broadcast(x.dims[1:], y.dims[1:]), int32 counts [-1]."""
    check_graph_indices(src_index, dst_index, "graph_send_ue_recv")
    feat = _broadcast(tuple(x.dims)[1:], tuple(y.dims)[1:], "graph_send_ue_recv")
    set_meta(out, (UNKNOWN, *feat), x.dtype, x.layout)
    set_meta(dst_count, (UNKNOWN,), DataType.INT32, x.layout)


def send_uvinfer_meta(x, y, src_index, dst_index, message_op: str, out) -> None:
    """SendUVInferMeta: [edges] + broadcast(x.dims[1:], y.dims[1:])."""
    check_graph_indices(src_index, dst_index, "graph_send_uv")
    feat = _broadcast(tuple(x.dims)[1:], tuple(y.dims)[1:], "graph_send_uv")
    set_meta(out, (next(iter(src_index.dims)), *feat), x.dtype, x.layout)


def graph_sample_neighbors_infer_meta(row, col_ptr, x, eids, perm_buffer, sample_size: int,
                                      return_eids: bool, flag_perm_buffer: bool, out, out_count,
                                      out_eids) -> None:
    """GraphSampleNeighborsInferMeta: neighbours [-1] and edge ids [-1] of row's dtype, int32
    counts [-1]."""
    for name, m in (("Row", row), ("Col_Ptr", col_ptr), ("X", x)):
        check_index_dtype("graph_sample_neighbors", name, m)
    set_meta(out, (UNKNOWN,), row.dtype, row.layout)
    set_meta(out_count, (UNKNOWN,), DataType.INT32, row.layout)
    set_meta(out_eids, (UNKNOWN,), row.dtype, row.layout)


def weighted_sample_neighbors_infer_meta(row, col_ptr, edge_weight, x, eids, sample_size: int,
                                         return_eids: bool, out, out_count, out_eids) -> None:
    """WeightedSampleNeighborsInferMeta: as :func:`graph_sample_neighbors_infer_meta`."""
    graph_sample_neighbors_infer_meta(row, col_ptr, x, eids, None, sample_size, return_eids,
                                      False, out, out_count, out_eids)


# -- linear algebra, comparisons, cumulative ops, histograms -----------------------------------

def multiplex_infer_meta(ins, ids, out) -> None:
    """MultiplexInferMeta: candidates of equal dims; Ids [rows, 1]."""
    if not ins:
        raise bad_argument("multiplex", "Input(X) holds no tensor.")
    if len(ids.dims) != 2 or ids.dims[1] not in (1, UNKNOWN):
        raise bad_argument("multiplex", f"Input(Ids) must be [rows, 1], but received "
                                        f"{fmt_dims(ids.dims)}.")
    first = ins[0].dims
    for t in ins[1:]:
        if tuple(t.dims) != tuple(first):
            raise bad_argument("multiplex", f"all candidate tensors must have the same dims, but "
                                            f"received {fmt_dims(first)} and {fmt_dims(t.dims)}.")
    if len(first) < 2:
        raise bad_argument("multiplex", f"the candidate tensors must be at least 2-D, but received "
                                        f"{fmt_dims(first)}.")
    out.set_dims(tuple(first))
    out.set_dtype(ins[0].dtype)
    out.set_layout(ins[0].layout)


# -- linear algebra ----------------------------------------------------------------------------

def multi_dot_infer_meta(x: list, out) -> None:
    """MultiDotInferMeta."""
    set_meta(out, multi_dot_out_dims([m.dims for m in x]), x[0].dtype, x[0].layout)


# -- reductions, statistics, losses ------------------------------------------------------------

# -- losses ----------------------------------------------------------------------------------------

def sigmoid_cross_entropy_with_logits_infer_meta(x, label, pos_weight, normalize: bool,
                                                 ignore_index: int, out) -> None:
    """SigmoidCrossEntropyWithLogitsInferMeta: X, Label (and pos_weight) of one shape."""
    check_same_dims("sigmoid_cross_entropy_with_logits", "X", "Label", x.dims, label.dims)
    if pos_weight is not None:
        check_same_dims("sigmoid_cross_entropy_with_logits", "X", "pos_weight", x.dims,
                        pos_weight.dims)
    out.share_meta(x)


# -- metrics ---------------------------------------------------------------------------------------

def auc_infer_meta(input, label, stat_pos, stat_neg, ins_tag_weight, curve: str,
                   num_thresholds: int, slide_steps: int, auc, stat_pos_out,
                   stat_neg_out) -> None:
    """AucInferMeta: AUC float64 0-D; the state outputs keep StatPos / StatNeg's shapes."""
    check_index_dtype("auc", "Label", label, ("int64",))  # the kernel reads int64_t
    if num_thresholds < 1:
        raise InvalidArgument("auc: attribute num_thresholds must be >= 1, but received "
                              f"{num_thresholds}.")
    if slide_steps < 0:
        raise InvalidArgument(f"auc: attribute slide_steps must be >= 0, but received "
                              f"{slide_steps}.")
    if UNKNOWN not in (input.dims[:1] + label.dims[:1]) and input.dims[:1] != label.dims[:1]:
        raise InvalidArgument("auc: Input(Predict) and Input(Label) must have the same number "
                              f"of rows, but received {fmt_dims(input.dims)} and "
                              f"{fmt_dims(label.dims)}.")
    set_meta(auc, (), DataType.FLOAT64)
    set_meta(stat_pos_out, stat_pos.dims, DataType.INT64)
    set_meta(stat_neg_out, stat_neg.dims, DataType.INT64)


# -- RNN-T loss --------------------------------------------------------------------------------

def warprnnt_infer_meta(input, label, input_lengths, label_lengths, blank: int,
                        fastemit_lambda: float, loss, warprnntgrad) -> None:
    """Loss [-1] of input's dtype (the kernel gives [B]); warprnntgrad input's dims."""
    loss.set_dims((UNKNOWN,))
    loss.set_dtype(input.dtype)
    warprnntgrad.set_dims(input.dims)
    warprnntgrad.set_dtype(input.dtype)
    warprnntgrad.set_layout(input.layout)


# -- interpolation -----------------------------------------------------------------------------

_METHODS = {1: ("linear",), 2: ("bilinear", "nearest", "bicubic"), 3: ("trilinear", "nearest")}


def interpolate_infer_meta(x, out_size, size_tensor, scale_tensor, data_layout: str, out_d: int,
                           out_h: int, out_w: int, scale, interp_method: str,
                           align_corners: bool, align_mode: int, out) -> None:
    """InterpolateInferMeta (3-D, 4-D, 5-D): x's N and C with the output sizes from the
    attributes; -1 where a tensor (OutSize, SizeTensor, Scale) decides them, as Paddle leaves
    it to the kernel."""
    dims = tuple(x.dims)
    nd = len(dims) - 2
    if nd not in _METHODS:
        raise InvalidArgument(f"Input(X) of Op(interpolate) must be 3-D, 4-D or 5-D, but "
                              f"received {fmt_dims(dims)}.")
    if interp_method not in _METHODS[nd]:
        raise InvalidArgument(
            f"Interpolation method can only be {' or '.join(_METHODS[nd])} when Input(X) "
            f"dimension is {len(dims)}, but got method = {interp_method}.")
    channel_last = interp_channel_last(data_layout)
    n, c = (dims[0], dims[-1]) if channel_last else (dims[0], dims[1])
    spatial = dims[1:-1] if channel_last else dims[2:]
    from_tensor = size_tensor or scale_tensor is not None or out_size is not None
    if from_tensor or (UNKNOWN in spatial and len(scale) > 0):
        sizes = [UNKNOWN] * nd
    else:
        sizes, _ = interp_out_sizes(spatial, (out_d, out_h, out_w)[3 - nd:], scale)
    out.set_dims((n, *sizes, c) if channel_last else (n, c, *sizes))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


# -- vision ------------------------------------------------------------------------------------

def bilinear_infer_meta(x, y, weight, bias, out) -> None:
    """BilinearInferMeta: X [B, M], Y [B, N], Weight [S, M, N], Bias [1, S] -> [B, S]."""
    xd, yd, wd = tuple(x.dims), tuple(y.dims), tuple(weight.dims)
    ok = len(xd) == 2 and len(yd) == 2 and len(wd) == 3
    if ok:
        for a, b in ((xd[0], yd[0]), (xd[1], wd[1]), (yd[1], wd[2])):
            ok = ok and (UNKNOWN in (a, b) or a == b)
    if ok and bias is not None:
        bd = tuple(bias.dims)
        ok = (len(bd) == 2 and bd[0] in (1, UNKNOWN) and UNKNOWN in (bd[1], wd[0])) or \
            (len(bd) == 2 and bd[0] in (1, UNKNOWN) and bd[1] == wd[0])
    if not ok:
        raise InvalidArgument(
            f"bilinear_tensor_product: expected X [B, M], Y [B, N], Weight [S, M, N], Bias "
            f"[1, S]; got {fmt_dims(xd)}, {fmt_dims(yd)}, {fmt_dims(wd)}"
            f"{', ' + fmt_dims(bias.dims) if bias is not None else ''}.")
    meta_like(x, out, (xd[0], wd[0]))
    out.share_lod(x)


# -- optimizers --------------------------------------------------------------------------------

# (number of inputs + attributes, {output index: argument index})
sgd_infer_meta = outputs_like(5, {0: 0, 1: 3}, "sgd_infer_meta")
momentum_infer_meta = outputs_like(11, {0: 0, 1: 2, 2: 4}, "momentum_infer_meta")
merged_momentum_infer_meta = outputs_like(11, {0: 0, 1: 2, 2: 4}, "merged_momentum_infer_meta")
lars_momentum_infer_meta = outputs_like(11, {0: 0, 1: 1, 2: 4}, "lars_momentum_infer_meta")
adam_infer_meta = outputs_like(16, {0: 0, 1: 3, 2: 4, 3: 5, 4: 6, 5: 7}, "adam_infer_meta")
adamw_infer_meta = outputs_like(19, {0: 0, 1: 3, 2: 4, 3: 5, 4: 6, 5: 7}, "adamw_infer_meta")
lamb_infer_meta = outputs_like(15, {0: 0, 1: 3, 2: 4, 3: 5, 4: 6, 5: 7}, "lamb_infer_meta")
adagrad_infer_meta = outputs_like(7, {0: 0, 1: 2, 2: 4}, "adagrad_infer_meta")
decayed_adagrad_infer_meta = outputs_like(6, {0: 0, 1: 2}, "decayed_adagrad_infer_meta")
adamax_infer_meta = outputs_like(11, {0: 0, 1: 3, 2: 4, 3: 6}, "adamax_infer_meta")
adadelta_infer_meta = outputs_like(9, {0: 0, 1: 2, 2: 3, 3: 5}, "adadelta_infer_meta")
rmsprop_infer_meta = outputs_like(12, {0: 0, 1: 3, 2: 1, 3: 5, 4: 6}, "rmsprop_infer_meta")


def check_finite_and_unscale_infer_meta(x: list, scale, out: list, found_infinite) -> None:
    """Out[i] like X[i]; FoundInfinite a bool [1]."""
    for o, s in zip(out, x, strict=False):
        if o is not None:
            o.share_meta(s)
    set_meta(found_infinite, (1,), DataType.BOOL)


def update_loss_scaling_infer_meta(x: list, found_infinite, prev_loss_scaling, in_good_steps,
                                   in_bad_steps, incr_every_n_steps, decr_every_n_nan_or_inf,
                                   incr_ratio, decr_ratio, stop_update, out: list, loss_scaling,
                                   out_good_steps, out_bad_steps) -> None:
    """Out[i] like X[i]; the scale like PrevLossScaling; the step counters int32 [1]."""
    for o, s in zip(out, x, strict=False):
        if o is not None:
            o.share_meta(s)
    if loss_scaling is not None:
        loss_scaling.share_meta(prev_loss_scaling)
    set_meta(out_good_steps, (1,), DataType.INT32)
    set_meta(out_bad_steps, (1,), DataType.INT32)


def average_accumulates_infer_meta(param, in_sum_1, in_sum_2, in_sum_3, in_num_accumulates,
                                   in_old_num_accumulates, in_num_updates, average_window,
                                   max_average_window, min_average_window, out_sum_1,
                                   out_sum_2, out_sum_3, out_num_accumulates,
                                   out_old_num_accumulates, out_num_updates) -> None:
    """The sums like param; the counters int64 [1]."""
    for o in (out_sum_1, out_sum_2, out_sum_3):
        if o is not None:
            o.share_meta(param)
    for o in (out_num_accumulates, out_old_num_accumulates, out_num_updates):
        set_meta(o, (1,), DataType.INT64)


# (number of inputs + attributes, {output index: argument index})
dgc_momentum_infer_meta = outputs_like(14, {0: 0, 1: 2, 2: 4, 3: 1}, "dgc_momentum_infer_meta")
merged_adam_infer_meta = outputs_like(13, {0: 0, 1: 3, 2: 4, 3: 5, 4: 6, 5: 7},
                                      "merged_adam_infer_meta")


# -- numerics checks, float status, schedules, random activations ------------------------------

def float_status_infer_meta(*args) -> None:
    """The float-status ops' InferShape: a float32 [8] status tensor (the last argument)."""
    out = args[-1]
    out.set_dims((8,))
    out.set_dtype(DataType.FLOAT32)


# -- buffers -----------------------------------------------------------------------------------

def coalesce_tensor_infer_meta(input: list, dtype, copy_data: bool, set_constant: bool,
                               persist_output: bool, constant: float, use_align: bool,
                               align_size: int, user_defined_size_of_dtype: int,
                               concated_shapes: list, concated_ranks: list, output: list,
                               fused_output) -> None:
    """CoalesceTensorInferMeta: Output[i] as Input[i] (or as concated_shapes says); FusedOutput
    1-D with every chunk, aligned as the kernel aligns them (-1 while a dim is unknown)."""
    from phi.kernels.funcs.memory import coalesce_tensor_layout

    shapes = [tuple(m.dims) for m in input]
    if concated_shapes:
        shapes, at = [], 0
        for rank in concated_ranks:
            shapes.append(tuple(int(d) for d in concated_shapes[at:at + int(rank)]))
            at += int(rank)
    for o, shape in zip(output, shapes, strict=False):
        if o is not None:
            o.set_dims(shape)
            o.set_dtype(dtype)
    if any(d == UNKNOWN or d < 0 for s in shapes for d in s):
        total = UNKNOWN
    else:
        total = coalesce_tensor_layout(shapes, dtype, use_align, align_size,
                                       user_defined_size_of_dtype)[1]
    fused_output.set_dims((total,))
    fused_output.set_dtype(dtype)


def check_memory_continue_infer_meta(x: list, out: list, xout) -> None:
    """Out[i] as X[i]; XOut 1-D of the chunks aligned to the CPU's 4096 bytes, in X's dtype."""
    from phi.kernels.funcs.memory import coalesce_tensor_layout

    for src, o in zip(x, out, strict=False):
        if o is not None:
            o.set_dims(tuple(src.dims))
            o.set_dtype(src.dtype)
    shapes = [tuple(m.dims) for m in x]
    dtype = x[0].dtype
    if any(d == UNKNOWN or d < 0 for s in shapes for d in s):
        total = UNKNOWN
    else:
        total = coalesce_tensor_layout(shapes, dtype, True, -1, -1)[1]
    xout.set_dims((total,))
    xout.set_dtype(dtype)


def nop_infer_meta(x: list, out: list) -> None:
    """nop sets nothing: its outputs stay as they are."""


def share_buffer_infer_meta(x: list, share_dims_and_dtype, out: list, xout: list) -> None:
    """ShareBufferInferMeta: Out[i] and XOut[i] take X[i]'s meta."""
    for src, o, xo in zip(x, out, xout, strict=False):
        if o is not None:
            o.share_meta(src)
        if xo is not None:
            xo.share_meta(src)


# -- sequences ---------------------------------------------------------------------------------

def edit_distance_infer_meta(hyps, refs, hypslength, refslength, normalized: bool,
                             sequencenum, out) -> None:
    """EditDistanceInferMeta: Out [num pairs, 1] float32 (-1 rows in LoD mode: the number of
    sequences), SequenceNum [1] (int64, the dtype the kernel registers for it)."""
    hd, rd = tuple(hyps.dims), tuple(refs.dims)
    if hypslength is not None and refslength is not None:
        hl, rl = tuple(hypslength.dims), tuple(refslength.dims)
        if not ((len(hd) == 2 and len(rd) == 2 and -1 in (hd[0], rd[0])) or
                (len(hd) == 2 and len(rd) == 2 and hd[0] == rd[0])):
            raise InvalidArgument(
                f"edit_distance: Input(Hyps) and Input(Refs) must be 2-D Tensors with identical "
                f"first dimension, got Hyps {list(hd)} and Refs {list(rd)}.")
        if -1 not in (hl[0], rl[0], hd[0]) and not hl[0] == rl[0] == hd[0]:
            raise InvalidArgument(
                f"edit_distance: Input(HypsLength), Input(RefsLength) and Input(Hyps) should "
                f"have identical first dimension, got {hl[0]}, {rl[0]} and {hd[0]}.")
        rows = hd[0]
    else:
        for slot, d in (("Hyps", hd), ("Refs", rd)):
            if len(d) != 2 or d[1] not in (1, -1):
                raise InvalidArgument(f"edit_distance: Input({slot}) must be a 2-D Tensor with "
                                      f"the 2nd dimension equal to 1, got {list(d)}.")
        rows = -1
    set_meta(out, (rows, 1), DataType.FLOAT32)
    set_meta(sequencenum, (1,), DataType.INT64)


def warpctc_infer_meta(logits, label, logits_length, labels_length, blank: int,
                       norm_by_times: bool, loss, warpctcgrad) -> None:
    """WarpctcInferMeta: Loss [num sequences (-1 in LoD mode), 1] in the logits' dtype."""
    d = tuple(logits.dims)
    if len(d) < 2:
        raise InvalidArgument(f"warpctc: Input(Logits) must be [T, C] with a LoD or [T_max, B, "
                              f"C] with LogitsLength, got {list(d)}.")
    if logits_length is not None and labels_length is not None:
        if len(d) != 3:
            raise InvalidArgument(f"warpctc: Input(Logits) must be [T_max, B, C] with "
                                  f"LogitsLength, got {list(d)}.")
        n, width = d[1], d[2]
    else:
        n, width = -1, d[-1]
    if width > 0 and not 0 <= blank < width:
        raise InvalidArgument(f"warpctc: Attr(blank) should be in interval [0, {width}), but "
                              f"received {blank}.")
    set_meta(loss, (n, 1), logits.dtype)
    set_meta(warpctcgrad, (-1, n, width), logits.dtype)


def hsigmoid_loss_infer_meta(x, label, w, bias, path, code, num_classes: int, is_sparse: bool,
                             out, pre_out, w_out) -> None:
    """HSigmoidLossInferMeta: Out [N, 1], PreOut [N, code length] in X's dtype."""
    xd, wd = tuple(x.dims), tuple(w.dims)
    if len(xd) != 2 or len(wd) != 2 or (-1 not in (xd[1], wd[1]) and xd[1] != wd[1]):
        raise InvalidArgument(f"hsigmoid_loss: X [N, D] and W [num_classes - 1, D] must be 2-D "
                              f"with the same width, got {list(xd)} and {list(wd)}.")
    if path is not None and (len(tuple(path.dims)) != 2 or code is None):
        raise InvalidArgument(f"hsigmoid_loss: PathTable must be 2-D [N, code length] and come "
                              f"with PathCode, got {list(path.dims)}.")
    if num_classes < 2 and path is None:
        raise InvalidArgument(f"hsigmoid_loss: num_classes must be at least 2, got "
                              f"{num_classes}.")
    n = xd[0]
    width = tuple(path.dims)[1] if path is not None else (num_classes - 1).bit_length()
    set_meta(out, (n, 1), x.dtype)
    set_meta(pre_out, (n, width), x.dtype)
    if w_out is not None:
        w_out.share_meta(w)


# -- detection ---------------------------------------------------------------------------------

def psroi_pool_infer_meta(x, boxes, boxes_num, pooled_height, pooled_width, output_channels,
                          spatial_scale, out) -> None:
    """[num_rois, output_channels, pooled_height, pooled_width]."""
    check_roi_inputs("psroi_pool", x, boxes, pooled_height, pooled_width)
    set_meta(out, (boxes.dims[0], output_channels, pooled_height, pooled_width), x.dtype)


def generate_proposals_infer_meta(scores, bbox_deltas, im_shape, anchors, variances,
                                  pre_nms_top_n, post_nms_top_n, nms_thresh, min_size, eta,
                                  pixel_offset, rpn_rois, rpn_roi_probs, rpn_rois_num) -> None:
    """RpnRois [-1, 4], RpnRoiProbs [-1, 1], RpnRoisNum [-1] int32."""
    if len(scores.dims) != 4 or len(bbox_deltas.dims) != 4:
        raise InvalidArgument(f"generate_proposals: Scores and BboxDeltas must be 4-D, got "
                              f"{list(scores.dims)} and {list(bbox_deltas.dims)}.")
    set_meta(rpn_rois, (-1, 4), scores.dtype)
    set_meta(rpn_roi_probs, (-1, 1), scores.dtype)
    set_meta(rpn_rois_num, (-1,), DataType.INT32)


def yolo_loss_infer_meta(x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num,
                         ignore_thresh, downsample_ratio, use_label_smooth, scale_x_y, loss,
                         objectness_mask, gt_match_mask) -> None:
    """Loss [N], ObjectnessMask [N, len(anchor_mask), H, W], GTMatchMask [N, B] int32."""
    op = "yolov3_loss"
    if len(x.dims) != 4:
        raise InvalidArgument(f"{op}: X must be 4-D (NCHW), got dims {list(x.dims)}.")
    if len(gt_box.dims) != 3 or gt_box.dims[2] not in (4, -1):
        raise InvalidArgument(f"{op}: GTBox must be [N, B, 4], got dims {list(gt_box.dims)}.")
    if len(gt_label.dims) != 2:
        raise InvalidArgument(f"{op}: GTLabel must be 2-D [N, B], got dims "
                              f"{list(gt_label.dims)}.")
    if len(anchors) % 2 or not anchors:
        raise InvalidArgument(f"{op}: anchors must hold (w, h) pairs, got {list(anchors)}.")
    if not anchor_mask:
        raise InvalidArgument(f"{op}: anchor_mask must not be empty.")
    if class_num <= 0:
        raise InvalidArgument(f"{op}: class_num must be positive, got {class_num}.")
    mask_num, n_an = len(anchor_mask), len(anchors) // 2
    if any(m < 0 or m >= n_an for m in anchor_mask):
        raise InvalidArgument(f"{op}: anchor_mask entries must lie in [0, {n_an}), got "
                              f"{list(anchor_mask)}.")
    c = x.dims[1]
    if c != -1 and c != mask_num * (5 + class_num):
        raise InvalidArgument(f"{op}: X's channels must be len(anchor_mask) * (5 + class_num) = "
                              f"{mask_num * (5 + class_num)}, got {c}.")
    if -1 not in (x.dims[2], x.dims[3]) and x.dims[2] != x.dims[3]:
        raise InvalidArgument(f"{op}: X's height and width must be equal, got {list(x.dims)}.")
    n, b = x.dims[0], gt_box.dims[1]
    set_meta(loss, (n,), x.dtype)
    set_meta(objectness_mask, (n, mask_num, x.dims[2], x.dims[3]), x.dtype)
    set_meta(gt_match_mask, (n, b), DataType.INT32)


# -- deformable convolution --------------------------------------------------------------------

def deformable_conv_infer_meta(x, offset, filter, mask, strides, paddings, dilations,
                               deformable_groups, groups, im2col_step, out) -> None:
    """The convolution's output dims [N, M, OH, OW]."""
    if len(x.dims) != 4 or len(filter.dims) != 4:
        raise InvalidArgument(f"deformable_conv: Input and Filter must be 4-D, got dims "
                              f"{list(x.dims)} and {list(filter.dims)}.")
    if len(strides) != 2 or len(paddings) < 2 or len(dilations) != 2:
        raise InvalidArgument("deformable_conv: strides, paddings and dilations must hold 2 "
                              "values each.")
    if min(strides) <= 0 or min(dilations) <= 0:
        raise InvalidArgument(f"deformable_conv: strides and dilations must be positive, got "
                              f"{strides} and {dilations}.")
    n, _, h, w = x.dims
    m, _, kh, kw = filter.dims

    def size(i, k, s, p, d):
        return -1 if i == -1 else (i + 2 * p - (d * (k - 1) + 1)) // s + 1

    set_meta(out, (n, m, size(h, kh, strides[0], paddings[0], dilations[0]),
                   size(w, kw, strides[1], paddings[1], dilations[1])), x.dtype)


# -- fused and quantization ops ----------------------------------------------------------------

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
