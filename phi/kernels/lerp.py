"""The ``lerp`` and ``lerp_grad`` kernels."""

from __future__ import annotations

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import (as_array, quiet)
from phi.kernels.funcs.elementwise import sum_to_shape

__all__ = ["lerp"]


_F = ["float32", "float64"]


@register_kernel("lerp", ("CPU", "GPU"), dtypes=_F)
def lerp(ctx, x: Tensor, y: Tensor, weight: Tensor) -> Tensor:
    """x + weight * (y - x), all three broadcast."""
    xp = ctx.xp
    with quiet(xp):
        return as_array(xp, x + weight * (y - x))


@register_kernel("lerp_grad", ("CPU", "GPU"), dtypes=["float32", "float64"])
def lerp_grad(ctx, x: Tensor, y: Tensor, weight: Tensor, out: Tensor,
              out_grad: Tensor) -> tuple[Tensor, Tensor]:
    """dx = dout * (1 - w), dy = dout * w, each summed back to its input's shape."""
    xp = ctx.xp
    shape = tuple(out_grad.shape)
    with quiet(xp):
        w = xp.broadcast_to(weight, shape)
        one = out_grad.dtype.type(1)
        dx, dy = out_grad * (one - w), out_grad * w
    return sum_to_shape(ctx, dx, x), sum_to_shape(ctx, dy, y)
