"""The ``is_empty`` kernel."""

from __future__ import annotations

import math


from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.manipulation import IS_EMPTY_DTYPES

__all__ = ["is_empty"]


@register_kernel("is_empty", ("CPU", "GPU"), dtypes=IS_EMPTY_DTYPES,
                 output_defs={0: {"dtype": DataType.BOOL}})
def is_empty(ctx, x: Tensor) -> Tensor:
    """A 0-D bool: whether x has no elements."""
    return ctx.asarray(math.prod(x.shape) == 0, DataType.BOOL)
