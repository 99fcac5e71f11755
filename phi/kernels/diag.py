"""The ``diag`` and ``diag_grad`` kernels."""

from __future__ import annotations



from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.unary import diag_infer_meta
from phi.kernels.funcs import owned, scalar_as
from phi.kernels.funcs.backward import adjoint, grad_kernel
from phi.kernels.funcs.manipulation import DIAG_DTYPES, ShapeMeta, SinkMeta

__all__ = ["diag"]


# -- diagonals ---------------------------------------------------------------------------------

@register_kernel("diag", ("CPU", "GPU"), dtypes=DIAG_DTYPES)
def diag(ctx, x: Tensor, offset: int, padding_value: float) -> Tensor:
    """0-D / 1-D x: a square matrix with x on its ``offset`` diagonal, ``padding_value``
    elsewhere; 2-D x: its ``offset`` diagonal."""
    xp = ctx.xp
    diag_infer_meta(ShapeMeta(x), offset, padding_value, SinkMeta())
    if x.ndim == 2:
        return owned(xp, xp.diagonal(x, offset=offset))
    v = xp.reshape(x, (-1,))
    n = v.shape[0] + abs(offset)
    dtype = ctx.data_type(x)
    out = ctx.full((n, n), scalar_as(ctx, float(padding_value), dtype), dtype)
    i = xp.arange(v.shape[0])
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    out[rows, cols] = v
    return out


@grad_kernel("diag_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "float16"])
def diag_grad(ctx, x: Tensor, out_grad: Tensor, offset: int) -> Tensor:
    """out_grad's elements that diag took from x."""
    return adjoint(ctx, x.shape, out_grad, lambda ids: diag(ctx, ids, offset, -1.0))
