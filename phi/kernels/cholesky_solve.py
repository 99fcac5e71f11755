"""The ``cholesky_solve`` and ``cholesky_solve_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import square_dims
from phi.kernels.funcs import quiet
from phi.kernels.funcs.linalg import (conj_transpose, contiguous_as, matmul_batch, solve_left,
                                      sum_batch_to, tri_solve)

__all__ = ["cholesky_solve"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


@register_kernel("cholesky_solve", ("CPU", "GPU"), dtypes=REAL)
def cholesky_solve(ctx, x: Tensor, y: Tensor, upper: bool) -> Tensor:
    """A^-1 X with A = L L^T (y = L) or U^T U (``upper``, y = U); batch dims broadcast."""
    xp = ctx.xp
    square_dims(y.shape, "cholesky_solve", "Y")
    if x.ndim < 2 or x.shape[-2] != y.shape[-1]:
        raise InvalidArgument(f"cholesky_solve: the rows of Input(X) {list(x.shape)} must equal "
                              f"the order of Input(Y) {list(y.shape)}.")
    f, b = matmul_batch(ctx, y, x, "cholesky_solve")
    low = xp.swapaxes(f, -1, -2) if upper else f
    z = tri_solve(ctx, low, b, upper=False)
    return tri_solve(ctx, xp.swapaxes(low, -1, -2), z, upper=True)


_F = ["float32", "float64"]


@register_kernel("cholesky_solve_grad", ("CPU", "GPU"), dtypes=_F)
def cholesky_solve_grad(ctx, x: Tensor, y: Tensor, out: Tensor, out_grad: Tensor,
                        upper: bool) -> tuple[Tensor, Tensor]:
    """dX = cholesky_solve(dOut, Y); C = dX Out^H + Out dX^H; dY = triu(-Y C) (upper) or
    tril(-C Y)."""
    xp = ctx.xp
    batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    f = xp.broadcast_to(y, (*batch, *y.shape[-2:]))
    g = xp.broadcast_to(out_grad, (*batch, *out_grad.shape[-2:]))
    low = conj_transpose(xp, f) if upper else f
    with quiet(xp):
        z = solve_left(xp, low, g, upper=False)
        dx = solve_left(xp, conj_transpose(xp, low), z, upper=True)
        o = xp.broadcast_to(out, dx.shape)
        c = dx @ conj_transpose(xp, o)
        c = c + conj_transpose(xp, c)
        dy = xp.triu(-(f @ c)) if upper else xp.tril(-(c @ f))
    return (contiguous_as(xp, sum_batch_to(xp, dx, x.shape), x.dtype),
            contiguous_as(xp, sum_batch_to(xp, dy, y.shape), y.dtype))
