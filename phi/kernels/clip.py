"""The ``clip`` and ``clip_grad`` kernels."""

from __future__ import annotations

from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import (as_array, scalar_as)
from phi.kernels.funcs.activation import scalar_value

__all__ = ["clip"]


POW_CLIP_DTYPES = ["float32", "float64", "int32", "int64"]


@register_kernel("clip", ("CPU", "GPU"), dtypes=POW_CLIP_DTYPES)
def clip(ctx, x: Tensor, min: Scalar, max: Scalar) -> Tensor:  # Paddle's argument names
    """x < min ? min : (x > max ? max : x) with min, max converted to T; NaN stays NaN."""
    xp = ctx.xp
    dtype = ctx.data_type(x)
    lo = scalar_as(ctx, scalar_value(min), dtype)
    hi = scalar_as(ctx, scalar_value(max), dtype)
    if bool(lo > hi):
        raise InvalidArgument(
            f"max should be greater than or equal to min. But received min = {lo}, max = {hi}"
        )
    return as_array(xp, xp.where(x < lo, lo, xp.where(x > hi, hi, x)))


_F_I = ["float32", "float64", "int32", "int64"]


@register_kernel("clip_grad", ("CPU", "GPU"), dtypes=_F_I)
def clip_grad(ctx, x: Tensor, out_grad: Tensor, min: Scalar, max: Scalar) -> Tensor:
    """dx = (min < x < max) ? dout : 0 with min, max converted to T."""
    xp = ctx.xp
    dtype = ctx.data_type(x)
    lo = scalar_as(ctx, min.value if isinstance(min, Scalar) else min, dtype)
    hi = scalar_as(ctx, max.value if isinstance(max, Scalar) else max, dtype)
    return as_array(xp, xp.where((x > lo) & (x < hi), out_grad, out_grad.dtype.type(0)))
