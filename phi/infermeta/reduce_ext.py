"""InferMeta of helper `reduce`'s kernels: reductions and norms, losses, metrics (Paddle's
paddle/phi/infermeta/{unary,binary,ternary,multiary}.cc functions of the same names)."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import UNKNOWN, check_index_dtype, fmt_dims, int_array_data, set_meta
from phi.infermeta.unary import reduce_axes

__all__ = [
    "accuracy_infer_meta",
    "auc_infer_meta",
    "bce_loss_infer_meta",
    "check_kth",
    "cross_entropy_with_softmax_infer_meta",
    "huber_loss_infer_meta",
    "identity_loss_infer_meta",
    "kldiv_infer_meta",
    "kthvalue_infer_meta",
    "log_loss_infer_meta",
    "margin_cross_entropy_infer_meta",
    "mean_all_infer_meta",
    "median_out_dims",
    "mode_infer_meta",
    "nanmedian_infer_meta",
    "nll_loss_raw_infer_meta",
    "norm_infer_meta",
    "sigmoid_cross_entropy_with_logits_infer_meta",
    "spectral_norm_infer_meta",
    "squared_l2_norm_infer_meta",
]




def _norm_axis(axis: int, rank: int, op: str, name: str = "axis") -> int:
    lo = -rank if rank else -1
    hi = rank if rank else 1
    if not lo <= axis < hi:
        raise InvalidArgument(f"{op}: attribute {name} must be in [{lo}, {hi}) for an input of "
                              f"rank {rank}, but received {axis}.")
    return axis + rank if axis < 0 else axis


def _same_dims(op: str, a: str, b: str, da, db) -> None:
    """Both known dims must agree (-1 passes, as Paddle's compile-time checks skip it)."""
    if len(da) != len(db) or any(x != y and UNKNOWN not in (x, y)
                                 for x, y in zip(da, db, strict=True)):
        raise InvalidArgument(f"{op}: Input({a}) and Input({b}) must have the same shape, but "
                              f"received {fmt_dims(da)} and {fmt_dims(db)}.")


# -- reductions and norms -------------------------------------------------------------------------

def norm_infer_meta(x, axis: int, epsilon: float, is_test: bool, out, norm) -> None:
    """NormInferMeta: Out as x; Norm as x with ``axis`` of size 1."""
    a = _norm_axis(axis, len(x.dims), "norm")
    set_meta(out, x.dims, x.dtype, x.layout)  # Paddle's NormInferMeta passes no LoD
    dims = list(x.dims)
    if dims:
        dims[a] = 1
    set_meta(norm, dims, x.dtype, x.layout)


def squared_l2_norm_infer_meta(x, out) -> None:
    """SquaredL2NormInferMeta: [1]."""
    set_meta(out, (1,), x.dtype, x.layout)


def mean_all_infer_meta(x, out) -> None:
    """MeanAllInferMeta: 0-D of x's dtype."""
    set_meta(out, (), x.dtype, x.layout)


def median_out_dims(x_dims, axis, keepdim: bool) -> tuple[int, ...]:
    """Out's dims of nanmedian: every axis reduced when ``axis`` is empty (all 1 with keepdim)."""
    axis = int_array_data(axis)
    rank = len(x_dims)
    if not axis:
        return (1,) * rank if keepdim else ()
    axes = reduce_axes(x_dims, axis)
    return tuple(1 if i in axes else d for i, d in enumerate(x_dims) if keepdim or i not in axes)


def nanmedian_infer_meta(x, axis, keepdim: bool, out, median_index) -> None:
    """NanmedianInferMeta: Out per :func:`median_out_dims`; MedianIndex int64 [numel * 2]."""
    set_meta(out, median_out_dims(x.dims, axis, keepdim), x.dtype, x.layout)
    numel = UNKNOWN
    if UNKNOWN not in x.dims:
        numel = 1
        for d in x.dims:
            numel *= d
        numel *= 2
    set_meta(median_index, (numel,), DataType.INT64)


def _axis_reduced(x, axis: int, keepdim: bool, op: str) -> tuple[int, ...]:
    if not x.dims:
        return ()
    a = _norm_axis(axis, len(x.dims), op)
    return tuple(1 if i == a else d for i, d in enumerate(x.dims) if keepdim or i != a)


def mode_infer_meta(x, axis: int, keepdim: bool, out, indices) -> None:
    """ModeInferMeta: ``axis`` reduced; Indices int64."""
    dims = _axis_reduced(x, axis, keepdim, "mode")
    set_meta(out, dims, x.dtype, x.layout)
    set_meta(indices, dims, DataType.INT64)


def check_kth(x_dims, k: int, axis: int) -> None:
    """KthvalueInferMeta's checks of ``k`` and ``axis``."""
    rank = len(x_dims)
    if rank == 0:
        if k != 1:
            raise InvalidArgument("the k in the kthvalue must less equal than the elements "
                                  f"number of the input X, but received {k} .")
        _norm_axis(axis, rank, "kthvalue")
        return
    a = _norm_axis(axis, rank, "kthvalue")
    if k < 1:
        raise InvalidArgument(f"the k in the kthvalue must >= 1, but received {k} .")
    if x_dims[a] != UNKNOWN and x_dims[a] < k:
        raise InvalidArgument(f"input of kthvalue must have >= {k} columns in axis of {a}, but "
                              f"received input_dims[axis]:{x_dims[a]} < k:{k}.")


def kthvalue_infer_meta(x, k: int, axis: int, keepdim: bool, out, indices) -> None:
    """KthvalueInferMeta: ``axis`` reduced; Indices int64."""
    check_kth(x.dims, k, axis)
    dims = _axis_reduced(x, axis, keepdim, "kthvalue")
    set_meta(out, dims, x.dtype, x.layout)
    set_meta(indices, dims, DataType.INT64)


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

def bce_loss_infer_meta(input, label, out) -> None:
    """BCELossInferMeta: X and Label of one shape; Out as X."""
    _same_dims("bce_loss", "X", "Label", input.dims, label.dims)
    out.share_meta(input)


def huber_loss_infer_meta(input, label, delta: float, out, residual) -> None:
    """HuberLossInferMeta: X and Y of one shape; Out and Residual as X."""
    _same_dims("huber_loss", "X", "Y", input.dims, label.dims)
    out.share_meta(input)
    set_meta(residual, input.dims, input.dtype, input.layout)


def kldiv_infer_meta(x, label, reduction: str, out) -> None:
    """KLDivInferMeta: X and Target of one shape; Out as X for "none", else 0-D."""
    if reduction not in ("none", "batchmean", "mean", "sum"):
        raise InvalidArgument("kldiv_loss: attribute reduction can only be one of none, "
                              f"batchmean, mean, sum, but received {reduction!r}.")
    _same_dims("kldiv_loss", "X", "Target", x.dims, label.dims)
    set_meta(out, x.dims if reduction == "none" else (), x.dtype, x.layout)


def log_loss_infer_meta(input, label, epsilon: float, out) -> None:
    """LogLossInferMeta: Predicted and Labels [N, 1]; Loss [N, 1]."""
    _same_dims("log_loss", "Predicted", "Labels", input.dims, label.dims)
    if len(input.dims) != 2 or input.dims[1] not in (1, UNKNOWN):
        raise InvalidArgument("log_loss: Input(Predicted) must be of shape [N, 1], but received "
                              f"{fmt_dims(input.dims)}.")
    out.share_meta(input)


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


def sigmoid_cross_entropy_with_logits_infer_meta(x, label, pos_weight, normalize: bool,
                                                 ignore_index: int, out) -> None:
    """SigmoidCrossEntropyWithLogitsInferMeta: X, Label (and pos_weight) of one shape."""
    _same_dims("sigmoid_cross_entropy_with_logits", "X", "Label", x.dims, label.dims)
    if pos_weight is not None:
        _same_dims("sigmoid_cross_entropy_with_logits", "X", "pos_weight", x.dims,
                   pos_weight.dims)
    out.share_meta(x)


def cross_entropy_with_softmax_infer_meta(logits, label, soft_label: bool, use_softmax: bool,
                                          numeric_stable_mode: bool, ignore_index: int,
                                          axis: int, softmax, loss) -> None:
    """CrossEntropyWithSoftmaxInferMeta: Softmax as Logits; Loss as Logits with ``axis`` of
    size 1; Label as Logits (soft) or with ``axis`` of size 1 (hard)."""
    rank = len(logits.dims)
    a = _norm_axis(axis, rank, "softmax_with_cross_entropy")
    if rank and a != rank - 1 and not numeric_stable_mode:
        raise InvalidArgument("softmax_with_cross_entropy: Attr(axis) can only be -1 when not in "
                              f"numeric_stable_mode, but received axis {axis} of rank {rank}.")
    if len(label.dims) != rank:
        raise InvalidArgument("softmax_with_cross_entropy: Input(Logits) and Input(Label) "
                              f"should have the same rank, but received {fmt_dims(logits.dims)} "
                              f"and {fmt_dims(label.dims)}.")
    want = list(logits.dims)
    if not soft_label and rank:
        want[a] = 1
    if rank and any(w != d and UNKNOWN not in (w, d)
                    for w, d in zip(want, label.dims, strict=True)):
        raise InvalidArgument(f"softmax_with_cross_entropy: Input(Label) should be "
                              f"{fmt_dims(want)} (soft_label={soft_label}), but received "
                              f"{fmt_dims(label.dims)}.")
    softmax.share_meta(logits)
    dims = list(logits.dims)
    if rank:
        dims[a] = 1
    set_meta(loss, dims, logits.dtype, logits.layout)
    loss.share_lod(logits)


def margin_cross_entropy_infer_meta(logits, label, return_softmax: bool, ring_id: int,
                                    rank: int, nranks: int, margin1: float, margin2: float,
                                    margin3: float, scale: float, softmax, loss) -> None:
    """MarginCrossEntropyInferMeta: Softmax as Logits; Loss [N, 1]."""
    softmax.share_meta(logits)
    set_meta(loss, (*logits.dims[:-1], 1), logits.dtype, logits.layout)


def identity_loss_infer_meta(x, reduction: int, out) -> None:
    """IdentityLossInferMeta: 0 (sum) and 1 (mean) give 0-D, 2 (none) x's dims."""
    if reduction not in (0, 1, 2):
        raise InvalidArgument("identity_loss: attribute reduction should be 0 (sum), 1 (mean) or "
                              f"2 (none), but received {reduction}.")
    set_meta(out, x.dims if reduction == 2 else (), x.dtype, x.layout)


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
