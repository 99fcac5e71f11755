"""The ``identity_loss`` and ``identity_loss_grad`` kernels."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, owned, quiet

__all__ = ["identity_loss"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
FLOAT_DTYPES = ["float32", "float64"]


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


# Paddle 2.6.2 CPU registrations of the grad kernels (corpus phi_kernels.json)
FLOATS = ["float32", "float64"]


@register_kernel("identity_loss_grad", ("CPU", "GPU"), dtypes=FLOATS)
def identity_loss_grad(ctx, x: Tensor, out_grad: Tensor, reduction: int) -> Tensor:
    """reduction 0 (sum): dout everywhere; 1 (mean): dout / numel; 2 (none): dout."""
    xp = ctx.xp
    t = x.dtype.type
    if reduction == 2:
        return as_array(xp, xp.array(out_grad, copy=True).reshape(x.shape))
    g = out_grad.reshape(())
    with quiet(xp):
        if reduction == 1:
            g = g / t(x.size)
    return as_array(xp, xp.full(x.shape, g, dtype=x.dtype))
