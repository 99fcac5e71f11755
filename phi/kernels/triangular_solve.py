"""The ``triangular_solve`` and ``triangular_solve_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet
from phi.kernels.funcs.linalg import (conj_transpose, contiguous_as, matmul_batch, solve_left,
                                      sum_batch_to, tri_solve)

__all__ = ["triangular_solve"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


@register_kernel("triangular_solve", ("CPU", "GPU"), dtypes=REAL)
def triangular_solve(ctx, x: Tensor, y: Tensor, upper: bool, transpose: bool,
                     unitriangular: bool) -> Tensor:
    """op(A) X = Y with A the ``upper`` / lower triangle of x (unit diagonal when
    ``unitriangular``, transposed when ``transpose``)."""
    xp = ctx.xp
    a = xp.triu(x) if upper else xp.tril(x)
    if transpose:
        a, upper = xp.swapaxes(a, -1, -2), not upper
    a, b = matmul_batch(ctx, a, y, "triangular_solve")
    return tri_solve(ctx, a, b, upper, unitriangular)


_F = ["float32", "float64"]


@register_kernel("triangular_solve_grad", ("CPU", "GPU"), dtypes=_F)
def triangular_solve_grad(ctx, x: Tensor, y: Tensor, out: Tensor, out_grad: Tensor,
                          upper: bool, transpose: bool, unitriangular: bool
                          ) -> tuple[Tensor, Tensor]:
    """dY = op(A)^-H dOut; dA = -dY Out^H (or -Out dY^H when transposed) kept on A's
    triangle as Paddle masks it (tril / triu with diagonal offset ``unitriangular``, so a
    unit lower triangle keeps its first superdiagonal); batch dims summed back."""
    xp = ctx.xp
    a = xp.triu(x) if upper else xp.tril(x)
    batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    a = xp.broadcast_to(a, (*batch, *a.shape[-2:]))
    g = xp.broadcast_to(out_grad, (*batch, *out_grad.shape[-2:]))
    o = xp.broadcast_to(out, g.shape)
    with quiet(xp):
        # op(A)^H: A^H when not transposed (its triangle flips), A itself when transposed
        if transpose:
            dy = solve_left(xp, a, g, upper, unitriangular)
            da = -(o @ conj_transpose(xp, dy))
        else:
            dy = solve_left(xp, conj_transpose(xp, a), g, not upper, unitriangular)
            da = -(dy @ conj_transpose(xp, o))
        # Paddle's TrilTriuCompute(diagonal = unitriangular): both triangles shift by +1
        k = 1 if unitriangular else 0
        da = xp.triu(da, k) if upper else xp.tril(da, k)
    return (contiguous_as(xp, sum_batch_to(xp, da, x.shape), x.dtype),
            contiguous_as(xp, sum_batch_to(xp, dy, y.shape), y.dtype))
