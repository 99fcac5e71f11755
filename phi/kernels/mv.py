"""The ``mv`` and ``mv_grad`` kernels."""

from __future__ import annotations

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array

__all__ = ["mv"]


_F = ["float32", "float64"]


@register_kernel("mv", ("CPU", "GPU"), dtypes=_F)
def mv(ctx, x: Tensor, vec: Tensor) -> Tensor:
    """Matrix x vector."""
    return as_array(ctx.xp, ctx.xp.matmul(x, vec))


@register_kernel("mv_grad", ("CPU", "GPU"), dtypes=_F)
def mv_grad(ctx, x: Tensor, vec: Tensor, out_grad: Tensor) -> tuple[Tensor, Tensor]:
    """dx = dout vec^T (outer product), dvec = x^T dout."""
    xp = ctx.xp
    return (as_array(xp, xp.outer(out_grad, vec).astype(x.dtype, copy=False)),
            as_array(xp, (x.T @ out_grad).astype(x.dtype, copy=False)))
