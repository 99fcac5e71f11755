"""The ``log_loss`` and ``log_loss_grad`` kernels."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet

__all__ = ["log_loss"]


F32 = ["float32"]


@register_kernel("log_loss", ("CPU", "GPU"), dtypes=F32)
def log_loss(ctx, input: Tensor, label: Tensor, epsilon: float) -> Tensor:
    """-label * log(p + eps) - (1 - label) * log(1 - p + eps)."""
    xp = ctx.xp
    t = input.dtype.type
    e = t(epsilon)
    with quiet(xp):
        return as_array(xp, -label * xp.log(input + e) - (t(1) - label) * xp.log(t(1) - input + e))


@register_kernel("log_loss_grad", ("CPU", "GPU"), dtypes=F32)
def log_loss_grad(ctx, input: Tensor, label: Tensor, out_grad: Tensor, epsilon: float
                  ) -> Tensor:
    """dout * (-label / (p + eps) + (1 - label) / (1 - p + eps))."""
    xp = ctx.xp
    t = input.dtype.type
    e = t(epsilon)
    with quiet(xp):
        return as_array(xp, out_grad * (-(label / (input + e))
                                        + (t(1) - label) / (t(1) - input + e)))
