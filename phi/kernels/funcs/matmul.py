"""Helpers shared by the matmul-like kernels' grads (matmul, bmm, dot, kron)."""

from __future__ import annotations

from phi.kernels.funcs import COMPLEX, as_array, quiet
from phi.kernels.funcs.elementwise import reduce_to

__all__ = ["conj_if_complex", "matmul_grads"]


def conj_if_complex(ctx, a):
    return ctx.xp.conj(a) if ctx.data_type(a) in COMPLEX else a


def _t(xp, a):
    return xp.swapaxes(a, -1, -2)


def matmul_grads(ctx, x, y, dout, trans_x: bool, trans_y: bool):
    """(dx, dy) of out = op(x) @ op(y) with numpy's 1-D rules (a 1-D x is a row, a 1-D y a
    column, their transpose flags ignored) and batch broadcasting summed back."""
    xp = ctx.xp
    x2 = x[None, :] if x.ndim == 1 else x
    y2 = y[:, None] if y.ndim == 1 else y
    g = dout  # y's vector axis first: two vectors give a 0-D dout
    if y.ndim == 1:
        g = g[..., None]
    if x.ndim == 1:
        g = g[..., None, :]
    tx, ty = trans_x and x.ndim >= 2, trans_y and y.ndim >= 2
    a = _t(xp, x2) if tx else x2
    b = _t(xp, y2) if ty else y2
    with quiet(xp):
        da = xp.matmul(g, _t(xp, conj_if_complex(ctx, b)))
        db = xp.matmul(_t(xp, conj_if_complex(ctx, a)), g)
    dx2 = _t(xp, da) if tx else da
    dy2 = _t(xp, db) if ty else db
    dx = xp.reshape(reduce_to(xp, dx2, x2.shape), x.shape)
    dy = xp.reshape(reduce_to(xp, dy2, y2.shape), y.shape)
    return as_array(xp, dx.astype(x.dtype, copy=False)), as_array(xp, dy.astype(y.dtype,
                                                                                copy=False))
