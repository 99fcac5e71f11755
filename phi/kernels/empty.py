"""The ``empty`` kernel."""

from __future__ import annotations



from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import scalar_as
from phi.kernels.funcs.manipulation import EMPTY_DTYPES

__all__ = ["empty"]


@register_kernel("empty", ("CPU", "GPU"), dtypes=EMPTY_DTYPES)
def empty(ctx, shape: IntArray, dtype: DataType) -> Tensor:
    """An uninitialized tensor of ``shape``: zeros here (Paddle leaves the memory as it is)."""
    dims = tuple(shape.data)
    if any(d < 0 for d in dims):
        raise InvalidArgument(f"empty: the shape must not be negative, but received "
                              f"[{', '.join(map(str, dims))}].")
    return ctx.full(dims, scalar_as(ctx, 0, dtype), dtype)
