"""The ``huber_loss`` and ``huber_loss_grad`` kernels."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet

__all__ = ["huber_loss"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
FLOAT_DTYPES = ["float32", "float64"]


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


# Paddle 2.6.2 CPU registrations of the grad kernels (corpus phi_kernels.json)
FLOATS = ["float32", "float64"]


@register_kernel("huber_loss_grad", ("CPU", "GPU"), dtypes=FLOATS)
def huber_loss_grad(ctx, residual: Tensor, out_grad: Tensor, delta: float
                    ) -> tuple[Tensor, Tensor]:
    """(dX, dY) = (-dout, dout) * clip(residual, -delta, delta) (residual = Y - X)."""
    xp = ctx.xp
    t = residual.dtype.type
    d = t(delta)
    with quiet(xp):
        inner = xp.abs(residual) <= d
        dy = xp.where(inner, residual, xp.where(residual > 0, d, -d))
        dx = xp.where(inner, -residual, xp.where(residual > 0, -d, d))
        return as_array(xp, out_grad * dx), as_array(xp, out_grad * dy)
