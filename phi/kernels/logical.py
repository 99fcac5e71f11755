"""Logical kernels: logical_and / or / xor / not (Paddle's paddle/phi/kernels/cpu/
logical_kernel.cc, funcs/logical_functor.h).

Any dtype is read as truth (non-zero, NaN included, is true); outputs are bool.  Binary inputs
broadcast numpy-style (ElementwiseCompute with axis -1).
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array

__all__ = ["logical_and", "logical_not", "logical_or", "logical_xor"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json): no uint8, float16 or bfloat16
LOGICAL_DTYPES = ["float32", "float64", "bool", "int64", "int32", "int8", "int16",
                  "complex64", "complex128"]
_BOOL_OUT = {0: {"dtype": DataType.BOOL}}


@register_kernel("logical_and", ("CPU", "GPU"), dtypes=LOGICAL_DTYPES, output_defs=_BOOL_OUT)
def logical_and(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x && y."""
    return as_array(ctx.xp, ctx.xp.logical_and(x, y))


@register_kernel("logical_or", ("CPU", "GPU"), dtypes=LOGICAL_DTYPES, output_defs=_BOOL_OUT)
def logical_or(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x || y."""
    return as_array(ctx.xp, ctx.xp.logical_or(x, y))


@register_kernel("logical_xor", ("CPU", "GPU"), dtypes=LOGICAL_DTYPES, output_defs=_BOOL_OUT)
def logical_xor(ctx, x: Tensor, y: Tensor) -> Tensor:
    """(x || y) && !(x && y)."""
    return as_array(ctx.xp, ctx.xp.logical_xor(x, y))


@register_kernel("logical_not", ("CPU", "GPU"), dtypes=LOGICAL_DTYPES, output_defs=_BOOL_OUT)
def logical_not(ctx, x: Tensor) -> Tensor:
    """!x."""
    return as_array(ctx.xp, ctx.xp.logical_not(x))
