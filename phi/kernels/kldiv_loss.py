"""The ``kldiv_loss`` and ``kldiv_loss_grad`` kernels."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet

__all__ = ["kldiv_loss"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
FLOAT_DTYPES = ["float32", "float64"]


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


# Paddle 2.6.2 CPU registrations of the grad kernels (corpus phi_kernels.json)
FLOATS = ["float32", "float64"]


@register_kernel("kldiv_loss_grad", ("CPU", "GPU"), dtypes=FLOATS)
def kldiv_loss_grad(ctx, x: Tensor, label: Tensor, out_grad: Tensor, reduction: str) -> Tensor:
    """-target * dout where target > 0 (else 0); "mean" divides by the element count,
    "batchmean" by x's first dimension."""
    xp = ctx.xp
    t = x.dtype.type
    if x.size == 0:
        return xp.zeros_like(x)
    with quiet(xp):
        dout = (out_grad.reshape(x.shape) if out_grad.size == x.size
                else xp.broadcast_to(out_grad.reshape(()), x.shape))
        g = xp.where(label > 0, -(label * dout), t(0))
        if reduction == "mean":
            g = g / t(x.size)
        elif reduction == "batchmean":
            g = g / t(x.shape[0] if x.ndim else 0)  # a 0-D dims()[0] reads 0
    return as_array(xp, g)
