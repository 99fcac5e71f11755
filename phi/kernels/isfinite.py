"""The ``isfinite``, ``isinf`` and ``isnan`` kernels."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import (INTEGERS, as_array)

__all__ = ["isfinite", "isinf", "isnan"]


# Paddle 2.6.2 CPU registrations of isnan / isinf / isfinite (corpus phi_kernels.json)
IS_DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64"]
_BOOL_OUT = {0: {"dtype": DataType.BOOL}}


@register_kernel("isnan", ("CPU", "GPU"), dtypes=IS_DTYPES, output_defs=_BOOL_OUT)
def isnan(ctx, x: Tensor) -> Tensor:
    """Whether each element is NaN (never for integers)."""
    xp = ctx.xp
    if ctx.data_type(x) in INTEGERS:
        return xp.zeros(x.shape, dtype=xp.bool_)
    return as_array(xp, xp.isnan(x))


@register_kernel("isinf", ("CPU", "GPU"), dtypes=IS_DTYPES, output_defs=_BOOL_OUT)
def isinf(ctx, x: Tensor) -> Tensor:
    """Whether each element is +-inf (never for integers; for bfloat16 also NaN)."""
    xp = ctx.xp
    if ctx.data_type(x) in INTEGERS:
        return xp.zeros(x.shape, dtype=xp.bool_)
    if ctx.data_type(x) is DataType.BFLOAT16:
        # phi's bfloat16 isinf tests only the exponent bits ((x & 0x7f80) == 0x7f80): NaN
        # counts as inf (Paddle-made cases hb_isinf_v2_*bf16)
        bits = x.view(ctx.xp_dtype(DataType.UINT16))
        return as_array(xp, xp.bitwise_and(bits, 0x7F80) == 0x7F80)
    return as_array(xp, xp.isinf(x))


@register_kernel("isfinite", ("CPU", "GPU"), dtypes=IS_DTYPES, output_defs=_BOOL_OUT)
def isfinite(ctx, x: Tensor) -> Tensor:
    """Whether each element is neither NaN nor +-inf (always for integers)."""
    xp = ctx.xp
    if ctx.data_type(x) in INTEGERS:
        return xp.ones(x.shape, dtype=xp.bool_)
    return as_array(xp, xp.isfinite(x))
