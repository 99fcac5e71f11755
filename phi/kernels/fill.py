"""The ``fill`` and ``fill_grad`` kernels."""

from __future__ import annotations

import math


from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import scalar_as
from phi.kernels.funcs.backward import grad_kernel, zeros_like_grad
from phi.kernels.funcs.manipulation import FILL_DTYPES

__all__ = ["fill"]


# -- creation ----------------------------------------------------------------------------------

@register_kernel("fill", ("CPU", "GPU"), dtypes=FILL_DTYPES)
def fill(ctx, x: Tensor, value: Scalar) -> Tensor:
    """A tensor shaped as x filled with ``value`` (NaN refused), converted as Scalar::to<T>."""
    v = value.value if isinstance(value, Scalar) else value
    if isinstance(v, float) and math.isnan(v):
        raise InvalidArgument("fill value should not be NaN, but received NaN")
    dtype = ctx.data_type(x)
    return ctx.full(tuple(x.shape), scalar_as(ctx, value, dtype), dtype)


@grad_kernel("fill_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "float16", "bfloat16", "bool"])
def fill_grad(ctx, out_grad: Tensor, value: Scalar) -> Tensor:
    """Zeros: the filled output does not depend on x."""
    return zeros_like_grad(ctx, out_grad)
