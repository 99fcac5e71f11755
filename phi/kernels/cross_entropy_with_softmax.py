"""The ``cross_entropy_with_softmax`` and ``cross_entropy_with_softmax_grad`` kernels."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, owned, quiet
from phi.kernels.funcs.softmax import positive_axis
from phi.kernels.softmax import softmax

__all__ = ["cross_entropy_with_softmax", "tolerable_log"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
FLOAT_DTYPES = ["float32", "float64"]


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


# Paddle 2.6.2 CPU registrations of the grad kernels (corpus phi_kernels.json)
FLOATS = ["float32", "float64"]


@register_kernel("cross_entropy_with_softmax_grad", ("CPU", "GPU"), dtypes=FLOATS,
                 input_defs={"label": _ANY})
def cross_entropy_with_softmax_grad(ctx, label: Tensor, softmax: Tensor, loss_grad: Tensor,
                                    soft_label: bool, use_softmax: bool,
                                    numeric_stable_mode: bool, ignore_index: int,
                                    axis: int) -> Tensor:
    """use_softmax: (softmax - label) * dloss (hard labels: -1 at the label's class, 0 for
    ``ignore_index``); without it Softmax holds the probabilities themselves and the gradient
    is -label / p * dloss (hard: only at the label's class)."""
    xp = ctx.xp
    if softmax.size == 0:
        return xp.zeros_like(softmax)
    axis = positive_axis(axis, softmax.ndim)
    t = softmax.dtype.type
    dloss = loss_grad.reshape(label.shape) if loss_grad.size == label.size else loss_grad
    with quiet(xp):
        if soft_label:
            if use_softmax:
                return as_array(xp, dloss * (softmax - label))
            return as_array(xp, dloss * (-label / softmax))
        lbl = label.astype(xp.int64)
        ignored = lbl == ignore_index
        onehot = xp.arange(softmax.shape[axis]).reshape(
            [-1 if d == axis else 1 for d in range(softmax.ndim)]) == lbl
        if use_softmax:
            grad = softmax * dloss - xp.where(onehot, dloss, t(0))
        else:
            grad = xp.where(onehot, (t(-1) / softmax) * dloss, t(0))
        return as_array(xp, xp.where(ignored, t(0), grad))
