"""The ``where`` and ``where_grad`` kernels."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import (as_array)
from phi.kernels.funcs.elementwise import sum_to_shape

__all__ = ["where"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
WHERE_DTYPES = ["float32", "float64", "int32", "int64"]


@register_kernel("where", ("CPU", "GPU"), dtypes=WHERE_DTYPES,
                 input_defs={"condition": {"dtype": DataType.ALL_DTYPE}})
def where(ctx, condition: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """condition ? x : y element-wise (same shapes, checked by WhereInferMeta)."""
    xp = ctx.xp
    return as_array(xp, xp.where(ctx.astype(condition, DataType.BOOL), x, y))


_F_I = ["float32", "float64", "int32", "int64"]


@register_kernel("where_grad", ("CPU", "GPU"), dtypes=_F_I,
                 input_defs={"condition": {"dtype": DataType.ALL_DTYPE}})
def where_grad(ctx, condition: Tensor, x: Tensor, y: Tensor,
               out_grad: Tensor) -> tuple[Tensor, Tensor]:
    """dx = cond ? dout : 0, dy = cond ? 0 : dout."""
    xp = ctx.xp
    zero = out_grad.dtype.type(0)
    cond = condition.astype(bool)
    dx = xp.where(cond, out_grad, zero)
    dy = xp.where(cond, zero, out_grad)
    return sum_to_shape(ctx, dx, x), sum_to_shape(ctx, dy, y)
