"""The ``trace`` and ``trace_grad`` kernels."""

from __future__ import annotations



from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import (as_array, quiet,
                               to_half)
from phi.kernels.funcs.reduce import half_row_sums

__all__ = ["trace"]


_FIC = ["float32", "float64", "int32", "int64", "complex64", "complex128"]


@register_kernel("trace", ("CPU", "GPU"), dtypes=[*_FIC, "float16"])
def trace(ctx, x: Tensor, offset: int, axis1: int, axis2: int) -> Tensor:
    """Sum of the ``offset`` diagonal over axis1 / axis2 (0 where that diagonal is empty).
    Paddle's funcs::Diagonal orders the two axes (smaller first) and keeps ``offset`` as is."""
    xp = ctx.xp
    rank = x.ndim
    a1, a2 = sorted((axis1 % rank, axis2 % rank))
    d = xp.diagonal(x, offset=offset, axis1=a1, axis2=a2)
    if ctx.data_type(x) is DataType.FLOAT16:
        # Eigen sums the diagonal (a (rest, length) matrix) along its rows in T: each addition
        # truncated, in order (Paddle-made case hb_trace_f16)
        rows = ctx.astype(d, DataType.FLOAT32)
        return to_half(ctx, half_row_sums(ctx, rows, DataType.FLOAT16), DataType.FLOAT16)
    with quiet(xp):
        return as_array(xp, xp.sum(d, axis=-1, dtype=x.dtype))


@register_kernel("trace_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "float16", "int32",
                                                       "int64", "complex64", "complex128"])
def trace_grad(ctx, x: Tensor, out_grad: Tensor, offset: int, axis1: int, axis2: int) -> Tensor:
    """dout on the ``offset`` diagonal over axis1 / axis2, zeros elsewhere."""
    xp = ctx.xp
    rank = x.ndim
    a1, a2 = sorted((axis1 % rank, axis2 % rank))
    dx = xp.zeros(x.shape, dtype=out_grad.dtype)
    view = xp.moveaxis(dx, (a1, a2), (-2, -1))  # a view: writes reach dx
    n1, n2 = view.shape[-2:]
    i = xp.arange(max(0, -offset), min(n1, n2 - offset)) if n1 and n2 else xp.arange(0)
    if i.size:
        view[..., i, i + offset] = out_grad[..., None]
    return dx
