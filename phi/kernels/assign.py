"""The assign kernels (Paddle's paddle/phi/kernels/assign_kernel.cc): assign_raw, a copy of the
input, and assign_value, a tensor of the attribute's values."""

from __future__ import annotations

import math


from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import ALL_DTYPES, cast_array, owned

__all__ = ["assign_raw", "assign_value"]


_ALL12 = list(ALL_DTYPES)


# Paddle registers x as ALL_BACKEND (its kernel copies from any place); here kernels compute
# with their own device's namespace, so x is moved to the kernel's device like any input.
@register_kernel("assign_raw", ("CPU", "GPU"), dtypes=_ALL12)
def assign_raw(ctx, x: Tensor) -> Tensor:
    """A copy of x (never a view)."""
    return owned(ctx.xp, x)


@register_kernel("assign_value", ("CPU", "GPU"),
                 dtypes=["bool", "int8", "int32", "int64", "float32", "float64"])
def assign_value(ctx, shape: list[int], dtype: DataType, values: list[Scalar]) -> Tensor:
    """A tensor of ``shape`` holding ``values`` (each converted to ``dtype``)."""
    n = math.prod(shape)
    if n != len(values):
        raise InvalidArgument(f"assign_value: the {len(values)} values do not fill the shape "
                              f"[{', '.join(map(str, shape))}] ({n} elements).")
    data = cast_array(ctx, ctx.asarray([v.value for v in values]), dtype)
    return ctx.xp.reshape(data, tuple(shape))
