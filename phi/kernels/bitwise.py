"""The ``bitwise_and``, ``bitwise_not``, ``bitwise_or`` and ``bitwise_xor`` kernels."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array
from phi.kernels.funcs.elementwise import empty_broadcast_check

__all__ = ["bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor"]


_BITWISE = ["bool", "uint8", "int8", "int16", "int32", "int64"]


@register_kernel("bitwise_and", ("CPU", "GPU"), dtypes=_BITWISE)
def bitwise_and(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x & y (logical and on bool)."""
    empty_broadcast_check("bitwise_and", x, y)
    return as_array(ctx.xp, ctx.xp.bitwise_and(x, y))


@register_kernel("bitwise_or", ("CPU", "GPU"), dtypes=_BITWISE)
def bitwise_or(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x | y (logical or on bool)."""
    empty_broadcast_check("bitwise_or", x, y)
    return as_array(ctx.xp, ctx.xp.bitwise_or(x, y))


@register_kernel("bitwise_xor", ("CPU", "GPU"), dtypes=_BITWISE)
def bitwise_xor(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x ^ y (logical xor on bool)."""
    empty_broadcast_check("bitwise_xor", x, y)
    return as_array(ctx.xp, ctx.xp.bitwise_xor(x, y))


@register_kernel("bitwise_not", ("CPU", "GPU"), dtypes=_BITWISE)
def bitwise_not(ctx, x: Tensor) -> Tensor:
    """~x (logical not on bool)."""
    return as_array(ctx.xp, ctx.xp.invert(x))
