"""Losses and metrics of helper `reduce` with phi kernels: bce_loss, huber_loss, kldiv_loss,
log_loss, nll_loss, sigmoid_cross_entropy_with_logits, cross_entropy_with_softmax,
margin_cross_entropy, identity_loss, label_smooth, accuracy, auc (Paddle's
paddle/phi/kernels/cpu/*_kernel.cc of the same names, funcs/cross_entropy.cc)."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, PreconditionNotMet, Unavailable
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, owned, quiet
from phi.kernels.softmax import softmax

__all__ = ["accuracy", "auc", "bce_loss", "cross_entropy_with_softmax", "huber_loss",
           "identity_loss", "kldiv_loss", "label_smooth", "log_loss", "margin_cross_entropy",
           "nll_loss", "sigmoid_cross_entropy_with_logits", "tolerable_log"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
FLOAT_DTYPES = ["float32", "float64"]
F32 = ["float32"]
MARGIN_DTYPES = ["float16", "float32", "float64"]

_APPRO_INF = 1e20  # TolerableValue's kApproInf
_ANY = {"dtype": DataType.ALL_DTYPE}  # labels, indices and state tensors of their own dtypes


def tolerable_log(xp, p):
    """TolerableValue(log(p)): log with -inf / +inf clamped to -+1e20 (in p's dtype)."""
    t = p.dtype.type
    with quiet(xp):
        v = xp.log(p)
    return xp.clip(v, t(-_APPRO_INF), t(_APPRO_INF))


def hard_label_loss(ctx, prob, label, ignore_index: int, axis: int, op: str):
    """-TolerableValue(log(prob[label])) along ``axis`` (label has size 1 there); 0 where the
    label is ``ignore_index``: CrossEntropyFunctor's hard-label branch."""
    xp = ctx.xp
    lbl = label.astype(xp.int64)
    ignored = lbl == ignore_index
    c = prob.shape[axis]
    bad = ~ignored & ((lbl < 0) | (lbl >= c))
    if bad.any():
        v = int(lbl[bad].reshape(-1)[0])
        raise InvalidArgument(f"{op}: the label should be in [0, {c}) or equal to ignore_index "
                              f"{ignore_index}, but received {v}.")
    picked = xp.take_along_axis(prob, xp.where(ignored, 0, lbl), axis=axis)
    return xp.where(ignored, prob.dtype.type(0), -tolerable_log(xp, picked))


def soft_label_loss(xp, prob, label, axis: int):
    """-sum(label * TolerableValue(log(prob))) along ``axis`` (kept)."""
    with quiet(xp):
        return xp.sum(-(label * tolerable_log(xp, prob)), axis=axis, keepdims=True)


@register_kernel("bce_loss", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def bce_loss(ctx, input: Tensor, label: Tensor) -> Tensor:
    """(label - 1) * max(log(1 - x), -100) - label * max(log(x), -100); x must be in [0, 1]."""
    xp = ctx.xp
    t = input.dtype.type
    if input.size and not bool(xp.all((input >= 0) & (input <= 1))):
        bad = float(input[~((input >= 0) & (input <= 1))].reshape(-1)[0])
        raise InvalidArgument("bce_loss: Input(X) is expected to be within the interval [0, 1], "
                              f"but received {bad:f}.")
    with quiet(xp):
        term1 = xp.maximum(xp.log(input), t(-100))
        term2 = xp.maximum(xp.log(t(1) - input), t(-100))
        return as_array(xp, (label - t(1)) * term2 - label * term1)


@register_kernel("huber_loss", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def huber_loss(ctx, input: Tensor, label: Tensor, delta: float) -> tuple[Tensor, Tensor]:
    """(loss, residual): r = label - x; 0.5 r^2 where |r| <= delta, else delta (|r| - delta/2)."""
    xp = ctx.xp
    t = input.dtype.type
    d = t(delta)
    with quiet(xp):
        r = label - input
        a = xp.abs(r)
        loss = xp.where(a <= d, t(0.5) * r * r, d * (a - t(0.5) * d))
    return as_array(xp, loss), as_array(xp, r)


@register_kernel("kldiv_loss", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def kldiv_loss(ctx, x: Tensor, label: Tensor, reduction: str) -> Tensor:
    """target * (log(target) - x) where target > 0, else 0; reduced by ``reduction``
    ("batchmean": the sum over x's first dim)."""
    xp = ctx.xp
    t = x.dtype.type
    with quiet(xp):
        loss = xp.where(label > 0, label * (xp.log(xp.where(label > 0, label, t(1))) - x), t(0))
        if reduction == "none":
            return as_array(xp, loss)
        total = xp.sum(loss)
        if reduction == "mean":
            return as_array(xp, total / t(loss.size))
        if reduction == "batchmean":
            return as_array(xp, total / t(x.shape[0] if x.ndim else 1))
        return as_array(xp, total)


@register_kernel("log_loss", ("CPU", "GPU"), dtypes=F32)
def log_loss(ctx, input: Tensor, label: Tensor, epsilon: float) -> Tensor:
    """-label * log(p + eps) - (1 - label) * log(1 - p + eps)."""
    xp = ctx.xp
    t = input.dtype.type
    e = t(epsilon)
    with quiet(xp):
        return as_array(xp, -label * xp.log(input + e) - (t(1) - label) * xp.log(t(1) - input + e))


@register_kernel("nll_loss", ("CPU", "GPU"), dtypes=FLOAT_DTYPES, input_defs={"label": _ANY})
def nll_loss(ctx, input: Tensor, label: Tensor, weight: Tensor | None, ignore_index: int,
             reduction: str) -> tuple[Tensor, Tensor]:
    """(loss, total_weight): -w[label] * x[label] per sample (X [N, C] or [N, C, H, W]), 0 for
    ``ignore_index``; "sum" / "mean" (over the total weight, unless it is 0) give 0-D, "none"
    Label's shape with total_weight 0."""
    xp = ctx.xp
    t = input.dtype.type
    c = input.shape[1]
    lbl = label.astype(xp.int64)
    ignored = lbl == ignore_index
    bad = ~ignored & ((lbl < 0) | (lbl >= c))
    if bad.any():
        raise InvalidArgument(f"nll_loss: label should not be out of bounds [0, {c}), but "
                              f"received {int(lbl[bad].reshape(-1)[0])}.")
    safe = xp.where(ignored, 0, lbl)
    w = xp.ones((c,), dtype=input.dtype) if weight is None else weight
    cur_w = xp.where(ignored, t(0), w[safe])
    picked = xp.squeeze(xp.take_along_axis(input, xp.expand_dims(safe, 1), axis=1), axis=1)
    with quiet(xp):
        loss = xp.where(ignored, t(0), -picked * cur_w)
        if reduction == "none":
            return as_array(xp, loss), ctx.asarray(0, ctx.data_type(input))
        total_w = xp.sum(cur_w)
        out = xp.sum(loss)
        if reduction == "mean" and total_w != 0:
            out = out / total_w
    return as_array(xp, out), as_array(xp, total_w)


@register_kernel("sigmoid_cross_entropy_with_logits", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def sigmoid_cross_entropy_with_logits(ctx, x: Tensor, label: Tensor, pos_weight: Tensor | None,
                                      normalize: bool, ignore_index: int) -> Tensor:
    """max(x, 0) - x * label + log(1 + exp(-|x|)) * pos_weight, 0 where int(label) equals
    ``ignore_index``; ``normalize`` divides by the count of labels not within 1e-6 of
    ``ignore_index`` (an int: 0 labels give 0 / 0)."""
    xp = ctx.xp
    t = x.dtype.type
    with quiet(xp):
        term3 = xp.log(t(1) + xp.exp(-xp.abs(x)))
        if pos_weight is not None:
            term3 = term3 * pos_weight
        out = xp.maximum(x, t(0)) - x * label + term3
        # static_cast<int>(label) truncates toward zero
        ignored = xp.trunc(label) == ignore_index
        out = xp.where(ignored, t(0), out)
        if normalize:
            diff = label - t(ignore_index)
            count = int(xp.sum((diff < t(-1e-6)) | (diff > t(1e-6))))
            out = out / t(count)
    return as_array(xp, out)


@register_kernel("cross_entropy_with_softmax", ("CPU", "GPU"), dtypes=FLOAT_DTYPES,
                 input_defs={"label": _ANY})
def cross_entropy_with_softmax(ctx, logits: Tensor, label: Tensor, soft_label: bool,
                               use_softmax: bool, numeric_stable_mode: bool, ignore_index: int,
                               axis: int) -> tuple[Tensor, Tensor]:
    """(softmax, loss): Paddle's CPU softmax along ``axis`` (logits unchanged without
    ``use_softmax``), then the cross entropy of those probabilities with TolerableValue's
    clamp of log(0); ``numeric_stable_mode`` changes nothing on the CPU."""
    xp = ctx.xp
    if logits.ndim == 0:
        raise InvalidArgument("softmax_with_cross_entropy: Input(Logits) must have at least "
                              "one dimension.")
    axis = axis + logits.ndim if axis < 0 else axis
    prob = softmax(ctx, logits, axis) if use_softmax else owned(xp, logits)
    if soft_label:
        loss = soft_label_loss(xp, prob, label, axis)
    else:
        loss = hard_label_loss(ctx, prob, label, ignore_index, axis, "softmax_with_cross_entropy")
    return prob, as_array(xp, loss)


@register_kernel("margin_cross_entropy", ("CPU", "GPU"), dtypes=MARGIN_DTYPES,
                 input_defs={"label": _ANY})
def margin_cross_entropy(ctx, logits: Tensor, label: Tensor, return_softmax: bool, ring_id: int,
                         rank: int, nranks: int, margin1: float, margin2: float, margin3: float,
                         scale: float) -> tuple[Tensor, Tensor]:
    """Paddle 2.6.2 registers it on the CPU only to refuse it."""
    raise Unavailable("Do not support margin_cross_entropy for cpu kernel now.")


@register_kernel("identity_loss", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def identity_loss(ctx, x: Tensor, reduction: int) -> Tensor:
    """reduction 0: the sum, 1: the mean (0-D), 2: x itself."""
    xp = ctx.xp
    with quiet(xp):
        if reduction == 0:
            return as_array(xp, xp.sum(x))
        if reduction == 1:
            return as_array(xp, xp.sum(x) / x.dtype.type(x.size))
    return owned(xp, x)


@register_kernel("label_smooth", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def label_smooth(ctx, label: Tensor, prior_dist: Tensor | None, epsilon: float) -> Tensor:
    """(1 - eps) * label + eps / C, or + eps * prior_dist (C: label's last dim)."""
    xp = ctx.xp
    t = label.dtype.type
    e = t(epsilon)
    with quiet(xp):
        if prior_dist is not None:
            extra = e * xp.reshape(prior_dist, (-1,))
        else:
            extra = e / t(label.shape[-1] if label.ndim else 1)
        return as_array(xp, (t(1) - e) * label + extra)


# -- metrics --------------------------------------------------------------------------------------

@register_kernel("accuracy", ("CPU", "GPU"), dtypes=FLOAT_DTYPES,
                 input_defs={"indices": _ANY, "label": _ANY},
                 output_defs={0: {"dtype": DataType.FLOAT32}, 1: {"dtype": DataType.INT32},
                              2: {"dtype": DataType.INT32}})
def accuracy(ctx, out: Tensor, indices: Tensor, label: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """(correct / total, correct, total): a sample is correct when one of its top-k Indices is
    its Label.  No samples: accuracy 0 (Paddle leaves Correct and Total unwritten; 0 here)."""
    xp = ctx.xp
    n = indices.shape[0]
    if n == 0:
        return (xp.zeros((), dtype=xp.float32), xp.zeros((), dtype=xp.int32),
                xp.zeros((), dtype=xp.int32))
    correct = int(xp.sum(xp.any(indices == xp.reshape(label, (n, 1)), axis=1)))
    return (xp.asarray(np.float32(correct) / np.float32(n)), xp.asarray(correct, xp.int32),
            xp.asarray(n, xp.int32))


def _auc_area(pos, neg) -> float:
    """calcAuc: trapezoids from the highest bucket down, over total pos * total neg."""
    area = tot_pos = tot_neg = 0.0
    for p, q in zip(reversed(pos.tolist()), reversed(neg.tolist()), strict=True):
        prev_pos, prev_neg = tot_pos, tot_neg
        tot_pos += p
        tot_neg += q
        area += abs(tot_neg - prev_neg) * (tot_pos + prev_pos) / 2.0
    if tot_pos > 0.0 and tot_neg > 0.0:
        area = area / tot_pos / tot_neg
    return area


# a host algorithm over small state tensors (numpy): CPU only, GPU places fall back to it
@register_kernel("auc", ("CPU",), dtypes=F32,
                 input_defs={"label": _ANY, "stat_pos": _ANY, "stat_neg": _ANY,
                             "ins_tag_weight": _ANY},
                 output_defs={0: {"dtype": DataType.FLOAT64}, 1: {"dtype": DataType.INT64},
                              2: {"dtype": DataType.INT64}})
def auc(ctx, input: Tensor, label: Tensor, stat_pos: Tensor, stat_neg: Tensor,
        ins_tag_weight: Tensor | None, curve: str, num_thresholds: int, slide_steps: int
        ) -> tuple[Tensor, Tensor, Tensor]:
    """(auc, stat_pos_out, stat_neg_out): the batch's predictions (last column of Predict) are
    counted into num_thresholds + 1 buckets of the state (a ring of ``slide_steps`` windows plus
    their sum and a step counter when ``slide_steps`` > 0), then the ROC area of the summed
    buckets; an InsTagWeight starting with 0 marks fake data (counted in no sum)."""
    xp = ctx.xp
    buckets = num_thresholds + 1
    size = (1 + slide_steps) * buckets + (1 if slide_steps > 0 else 0)
    pos = np.array(xp.reshape(stat_pos, (-1,)), dtype=np.int64, copy=True)
    neg = np.array(xp.reshape(stat_neg, (-1,)), dtype=np.int64, copy=True)
    if pos.size < size or neg.size < size:
        raise InvalidArgument(f"auc: Input(StatPos) and Input(StatNeg) need {size} elements for "
                              f"num_thresholds={num_thresholds} and slide_steps={slide_steps}, "
                              f"but hold {pos.size} and {neg.size}.")
    fake = ins_tag_weight is not None and float(xp.reshape(ins_tag_weight, (-1,))[0]) == 0.0
    shape_pos, shape_neg = stat_pos.shape, stat_neg.shape
    area = 0.0
    if not (slide_steps == 0 and fake):
        pred = np.asarray(input).reshape(input.shape[0], -1)[:, -1] if input.size else \
            np.zeros((0,), np.float32)
        if ((pred > 1) | (pred < 0)).any():
            msg = "less or equal 1" if (pred > 1).any() else "gather or equal 0"
            raise PreconditionNotMet(f"The predict data must {msg}.")
        lbl = np.asarray(label).reshape(-1)[:pred.size]
        # static_cast<uint32_t>(p * num_thresholds), the product in float
        bins = (pred * np.float32(num_thresholds)).astype(np.uint32)
        if slide_steps == 0:
            np.add.at(pos, bins[lbl > 0], 1)
            np.add.at(neg, bins[lbl == 0], 1)
            area = _auc_area(pos[:buckets], neg[:buckets])
        else:
            cur = int(pos[(slide_steps + 1) * buckets]) % slide_steps * buckets
            tot = slide_steps * buckets
            for st in (pos, neg):
                st[tot:tot + buckets] -= st[cur:cur + buckets]
                st[cur:cur + buckets] = 0
            np.add.at(pos, cur + bins[lbl > 0], 1)
            np.add.at(neg, cur + bins[lbl == 0], 1)
            if not fake:
                for st in (pos, neg):
                    st[tot:tot + buckets] += st[cur:cur + buckets]
            area = _auc_area(pos[tot:tot + buckets], neg[tot:tot + buckets])
            pos[(slide_steps + 1) * buckets] += 1
            neg[(slide_steps + 1) * buckets] += 1
    return (xp.asarray(np.float64(area)), xp.asarray(pos.reshape(shape_pos)),
            xp.asarray(neg.reshape(shape_neg)))
