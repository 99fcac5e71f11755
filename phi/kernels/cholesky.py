"""The ``cholesky`` and ``cholesky_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import square_dims
from phi.kernels.funcs import quiet
from phi.kernels.funcs.linalg import conj_transpose, contiguous_as, solve_left, solve_right

__all__ = ["cholesky"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


@register_kernel("cholesky", ("CPU", "GPU"), dtypes=REAL)
def cholesky(ctx, x: Tensor, upper: bool) -> Tensor:
    """L with x = L L^T from x's lower triangle; ``upper``: U = L^T."""
    xp = ctx.xp
    square_dims(x.shape, "cholesky")
    if x.size == 0:
        return xp.zeros(x.shape, x.dtype)
    try:
        low = xp.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        raise InvalidArgument("cholesky: the Cholesky decomposition was not successful: the "
                              "input is not positive-definite.") from None
    return xp.ascontiguousarray(xp.swapaxes(low, -1, -2) if upper else low).astype(x.dtype)


_F = ["float32", "float64"]


@register_kernel("cholesky_grad", ("CPU", "GPU"), dtypes=_F)
def cholesky_grad(ctx, out: Tensor, out_grad: Tensor, upper: bool) -> Tensor:
    """phi = tril(L^H dL) with its diagonal halved; dA = L^-H phi L^-1, symmetrized
    ((dA + dA^H) / 2)."""
    xp = ctx.xp
    low = conj_transpose(xp, out) if upper else out
    gl = conj_transpose(xp, out_grad) if upper else out_grad
    with quiet(xp):
        phi = xp.tril(conj_transpose(xp, low) @ gl)
        n = phi.shape[-1]
        idx = xp.arange(n)
        phi[..., idx, idx] *= phi.dtype.type(0.5)
        # L^-H phi L^-1: solve L^H Z = phi, then W L = Z
        z = solve_left(xp, conj_transpose(xp, low), phi, upper=True)
        da = solve_right(xp, z, low, upper=False)
        da = (da + conj_transpose(xp, da)) * da.dtype.type(0.5)
    return contiguous_as(xp, da, out.dtype)
