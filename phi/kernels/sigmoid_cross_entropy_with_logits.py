"""The ``sigmoid_cross_entropy_with_logits`` and ``sigmoid_cross_entropy_with_logits_grad``
kernels."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet

__all__ = ["sigmoid_cross_entropy_with_logits"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
FLOAT_DTYPES = ["float32", "float64"]


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


# Paddle 2.6.2 CPU registrations of the grad kernels (corpus phi_kernels.json)
FLOATS = ["float32", "float64"]


@register_kernel("sigmoid_cross_entropy_with_logits_grad", ("CPU", "GPU"), dtypes=FLOATS)
def sigmoid_cross_entropy_with_logits_grad(ctx, x: Tensor, label: Tensor,
                                           pos_weight: Tensor | None, out_grad: Tensor,
                                           normalize: bool, ignore_index: int) -> Tensor:
    """dout * (sigmoid(x) - label) in Paddle's stable form (with pos_weight: sigmoid(x) *
    pos_weight - label), 0 where int(label) is ``ignore_index``; ``normalize`` divides by the
    count of other labels (at least 1e-5, kept in an int: 0 labels divide by 0)."""
    xp = ctx.xp
    t = x.dtype.type
    with quiet(xp):
        if pos_weight is None:
            e_x = xp.exp(-xp.abs(x))
            sign = xp.where(x >= 0, t(1), t(-1))
            diff = xp.where(x > 0, t(1), t(0)) - label + (-e_x * sign) / (t(1) + e_x)
        else:  # Paddle 2.6.2: sigmoid(x) * pos_weight - label (not the forward's derivative)
            diff = t(1) / (t(1) + xp.exp(-x)) * pos_weight - label
        dx = xp.where(xp.trunc(label) == ignore_index, t(0), out_grad * diff)
        if normalize:
            d = label - t(ignore_index)
            norm = int(xp.sum((d < t(-1e-6)) | (d > t(1e-6))))
            dx = dx / t(norm)
    return as_array(xp, dx)
