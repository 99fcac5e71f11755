"""Helpers shared by the linear-algebra kernels and their grads: batched matmul and triangular
solves, the conjugate transpose, eigen decompositions, batch-dim reductions."""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.infermeta.funcs import batch_broadcast, square_dims
from phi.kernels.funcs import as_array
from phi.kernels.funcs.elementwise import reduce_to

__all__ = ["conj_transpose", "contiguous_as", "eig_values_vectors", "matmul_batch", "real_dtype_of",
           "solve_left", "solve_right", "sum_batch_to", "tri_solve"]


_CPLX = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


def matmul_batch(ctx, a, b, op):
    """a, b broadcast to common batch dims (a: [*, n, n], b: [*, n, k])."""
    xp = ctx.xp
    batch = batch_broadcast(a.shape[:-2], b.shape[:-2], op)
    return (xp.broadcast_to(a, (*batch, *a.shape[-2:])),
            xp.broadcast_to(b, (*batch, *b.shape[-2:])))


def tri_solve(ctx, a, b, upper: bool, unit: bool = False):
    """op(a) X = b by substitution (a triangular, zero pivots give inf / nan as BLAS trsm)."""
    xp = ctx.xp
    n = a.shape[-1]
    x = xp.zeros(b.shape, b.dtype)
    order = range(n - 1, -1, -1) if upper else range(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in order:
            rest = b[..., i, :] - xp.einsum("...j,...jk->...k", a[..., i, :], x)
            x[..., i, :] = rest if unit else rest / a[..., i, i][..., None]
    return x


def real_dtype_of(x):
    return np.empty(0, x.dtype).real.dtype


def eig_values_vectors(ctx, x, op):
    square_dims(x.shape, op)
    cdt = _CPLX.get(x.dtype, x.dtype)
    if not np.isfinite(x).all():
        raise InvalidArgument(f"{op}: the input contains Inf or NaN.")
    w, v = ctx.xp.linalg.eig(x)
    return w.astype(cdt), v.astype(cdt)


def conj_transpose(xp, a):
    """The conjugate transpose of the last two dims."""
    return xp.conj(xp.swapaxes(a, -1, -2)) if xp.iscomplexobj(a) else xp.swapaxes(a, -1, -2)


def sum_batch_to(xp, g, shape):
    """g summed over the batch dims it broadcast along, to ``shape``."""
    return xp.reshape(reduce_to(xp, g, tuple(shape)), tuple(shape))


class _Ctx:
    """The part of a device context _tri_solve reads (xp)."""

    def __init__(self, xp) -> None:
        self.xp = xp


def solve_left(xp, a, b, upper: bool, unit: bool = False):
    """X with a X = b, a triangular (``upper``); batch dims broadcast."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return tri_solve(_Ctx(xp), a, xp.broadcast_to(b, (*batch, *b.shape[-2:])), upper, unit)


def solve_right(xp, b, a, upper: bool, unit: bool = False):
    """X with X a = b, a triangular (``upper``)."""
    return xp.swapaxes(solve_left(xp, xp.swapaxes(a, -1, -2), xp.swapaxes(b, -1, -2),
                                   not upper, unit), -1, -2)


def contiguous_as(xp, a, dtype):
    return as_array(xp, xp.ascontiguousarray(a).astype(dtype, copy=False))
