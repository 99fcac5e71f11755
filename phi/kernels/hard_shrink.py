"""hard_shrink (Paddle's HardShrinkFunctor): x * ((x < -threshold) + (x > threshold)), a 0/1
mask times x, so NaN stays NaN and values inside the band give a signed zero.  Its grad is
grad_activation's hard_shrink_grad."""

from __future__ import annotations

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet

__all__ = ["hard_shrink"]


@register_kernel("hard_shrink", ("CPU", "GPU"), dtypes=["float32", "float64"])
def hard_shrink(ctx, x: Tensor, threshold: float) -> Tensor:
    """x where |x| > threshold, else 0 (times the mask: -0.0 for negative x in the band)."""
    xp = ctx.xp
    t = x.dtype.type(threshold)
    with quiet(xp):
        mask = ((x < -t) | (x > t)).astype(x.dtype)
        return as_array(xp, x * mask)
