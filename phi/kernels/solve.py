"""The ``solve`` and ``solve_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import solve_out_dims
from phi.kernels.funcs import quiet
from phi.kernels.funcs.linalg import conj_transpose, contiguous_as, matmul_batch, sum_batch_to

__all__ = ["solve"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


def _solve(ctx, a, b, op, what="Input is not invertible"):
    xp = ctx.xp
    if a.size == 0 or b.size == 0:
        return xp.zeros(b.shape, b.dtype)
    try:
        return xp.linalg.solve(a, b).astype(b.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise InvalidArgument(f"{op}: {what} (a pivot of its LU factorization is 0).") from None


@register_kernel("solve", ("CPU", "GPU"), dtypes=REAL)
def solve(ctx, x: Tensor, y: Tensor) -> Tensor:
    """X^-1 Y; Y of rank(X) - 1 is a (batch of) vector; batch dims broadcast."""
    dims, vector = solve_out_dims(x.shape, y.shape)
    b = y[..., None] if vector else y
    a, b = matmul_batch(ctx, x, b, "solve")
    out = _solve(ctx, a, b, "solve")
    return ctx.xp.ascontiguousarray(out.reshape(dims))


_F = ["float32", "float64"]


@register_kernel("solve_grad", ("CPU", "GPU"), dtypes=_F)
def solve_grad(ctx, x: Tensor, y: Tensor, out: Tensor, out_grad: Tensor
               ) -> tuple[Tensor, Tensor]:
    """dY = X^-H dOut, dX = -dY Out^H (a vector Y as a column), batch dims summed back."""
    xp = ctx.xp
    vector = y.ndim == x.ndim - 1 and y.ndim >= 1 and (y.ndim == 1 or y.shape[-1] != 0) and \
        out.ndim == y.ndim and out.ndim < x.ndim
    g = out_grad[..., None] if vector else out_grad
    o = out[..., None] if vector else out
    batch = np.broadcast_shapes(x.shape[:-2], g.shape[:-2])
    a = xp.broadcast_to(x, (*batch, *x.shape[-2:]))
    g = xp.broadcast_to(g, (*batch, *g.shape[-2:]))
    with quiet(xp):
        try:
            dy = xp.linalg.solve(conj_transpose(xp, a), g)
        except np.linalg.LinAlgError:
            raise InvalidArgument("solve_grad: Input(X) is not invertible.") from None
        dx = -(dy @ conj_transpose(xp, xp.broadcast_to(o, dy.shape)))
    ys = (*y.shape, 1) if vector else y.shape
    dy = xp.reshape(sum_batch_to(xp, dy, ys), y.shape)
    return contiguous_as(xp, sum_batch_to(xp, dx, x.shape), x.dtype), contiguous_as(xp, dy, y.dtype)
