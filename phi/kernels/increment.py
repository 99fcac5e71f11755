"""The ``increment`` kernel."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet, scalar_as

__all__ = ["increment"]


@register_kernel("increment", ("CPU", "GPU"), dtypes=["float32", "float64", "int32", "int64"])
def increment(ctx, x: Tensor, value: float) -> Tensor:
    """x + static_cast<T>(value) on a one-element x (an int x adds the truncated value)."""
    with quiet(ctx.xp):
        return as_array(ctx.xp, x + scalar_as(ctx, value, ctx.data_type(x)))
