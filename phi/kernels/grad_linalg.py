"""Grad kernels of the linear-algebra ops (Paddle's paddle/phi/kernels/impl/
{cholesky,cholesky_solve,eigh,eigvalsh,inverse,lu,lu_unpack,matrix_power,qr,slogdeterminant,
solve,svd,triangular_solve}_grad_kernel_impl.h), real dtypes as Paddle's CPU registrations.

Batched inputs are [*, m, n]; where the forward broadcast batch dims, the gradient is summed
back to each input's dims.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, Unimplemented
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet
from phi.kernels.grad_elementwise import reduce_to
from phi.kernels.linalg2 import _tri_solve, lu_unpack

__all__: list[str] = []

_F = ["float32", "float64"]
_FC = ["float32", "float64", "complex64", "complex128"]


def _h(xp, a):
    """The conjugate transpose of the last two dims."""
    return xp.conj(xp.swapaxes(a, -1, -2)) if xp.iscomplexobj(a) else xp.swapaxes(a, -1, -2)


def _batch_to(xp, g, shape):
    """g summed over the batch dims it broadcast along, to ``shape``."""
    return xp.reshape(reduce_to(xp, g, tuple(shape)), tuple(shape))


class _Ctx:
    """The part of a device context _tri_solve reads (xp)."""

    def __init__(self, xp) -> None:
        self.xp = xp


def _solve_left(xp, a, b, upper: bool, unit: bool = False):
    """X with a X = b, a triangular (``upper``); batch dims broadcast."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return _tri_solve(_Ctx(xp), a, xp.broadcast_to(b, (*batch, *b.shape[-2:])), upper, unit)


def _solve_right(xp, b, a, upper: bool, unit: bool = False):
    """X with X a = b, a triangular (``upper``)."""
    return xp.swapaxes(_solve_left(xp, xp.swapaxes(a, -1, -2), xp.swapaxes(b, -1, -2),
                                   not upper, unit), -1, -2)


def _out(xp, a, dtype):
    return as_array(xp, xp.ascontiguousarray(a).astype(dtype, copy=False))


@register_kernel("cholesky_grad", ("CPU", "GPU"), dtypes=_F)
def cholesky_grad(ctx, out: Tensor, out_grad: Tensor, upper: bool) -> Tensor:
    """phi = tril(L^H dL) with its diagonal halved; dA = L^-H phi L^-1, symmetrized
    ((dA + dA^H) / 2)."""
    xp = ctx.xp
    low = _h(xp, out) if upper else out
    gl = _h(xp, out_grad) if upper else out_grad
    with quiet(xp):
        phi = xp.tril(_h(xp, low) @ gl)
        n = phi.shape[-1]
        idx = xp.arange(n)
        phi[..., idx, idx] *= phi.dtype.type(0.5)
        # L^-H phi L^-1: solve L^H Z = phi, then W L = Z
        z = _solve_left(xp, _h(xp, low), phi, upper=True)
        da = _solve_right(xp, z, low, upper=False)
        da = (da + _h(xp, da)) * da.dtype.type(0.5)
    return _out(xp, da, out.dtype)


@register_kernel("cholesky_solve_grad", ("CPU", "GPU"), dtypes=_F)
def cholesky_solve_grad(ctx, x: Tensor, y: Tensor, out: Tensor, out_grad: Tensor,
                        upper: bool) -> tuple[Tensor, Tensor]:
    """dX = cholesky_solve(dOut, Y); C = dX Out^H + Out dX^H; dY = triu(-Y C) (upper) or
    tril(-C Y)."""
    xp = ctx.xp
    batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    f = xp.broadcast_to(y, (*batch, *y.shape[-2:]))
    g = xp.broadcast_to(out_grad, (*batch, *out_grad.shape[-2:]))
    low = _h(xp, f) if upper else f
    with quiet(xp):
        z = _solve_left(xp, low, g, upper=False)
        dx = _solve_left(xp, _h(xp, low), z, upper=True)
        o = xp.broadcast_to(out, dx.shape)
        c = dx @ _h(xp, o)
        c = c + _h(xp, c)
        dy = xp.triu(-(f @ c)) if upper else xp.tril(-(c @ f))
    return _out(xp, _batch_to(xp, dx, x.shape), x.dtype), _out(xp, _batch_to(xp, dy, y.shape),
                                                                 y.dtype)


@register_kernel("eigh_grad", ("CPU", "GPU"), dtypes=_FC)
def eigh_grad(ctx, out_w: Tensor, out_v: Tensor, dout_w: Tensor | None,
              dout_v: Tensor | None) -> Tensor:
    """dA = V (diag(dw) + ((V^H dV - (V^H dV)^H) / 2) / E) V^H, E[i, j] = w[j] - w[i] (the
    diagonal taken from dw; for a batch, from the first matrix's dw, as Paddle's DiagFill)."""
    xp = ctx.xp
    v = out_v
    n = v.shape[-1]
    idx = xp.arange(n)
    with quiet(xp):
        if dout_v is not None:
            r = _h(xp, v) @ dout_v
            r = (r - _h(xp, r)) * r.real.dtype.type(0.5)
            e = out_w[..., None, :] - out_w[..., :, None]
            r = r / e.astype(r.dtype)
        else:
            r = xp.zeros(v.shape, v.dtype)
        # Paddle's DiagFill reads scale[index % m]: every matrix of a batch gets the FIRST
        # matrix's eigenvalue gradients on its diagonal (kept as Paddle computes it)
        r[..., idx, idx] = xp.reshape(dout_w, (-1,))[:n] if dout_w is not None else 0
        dx = v @ r @ _h(xp, v)
    return _out(xp, dx, v.dtype)


@register_kernel("eigvalsh_grad", ("CPU", "GPU"), dtypes=_FC)
def eigvalsh_grad(ctx, out_v: Tensor, dout_w: Tensor, uplo: str, is_test: bool) -> Tensor:
    """dA = (V * dw) V^H, where Paddle multiplies the flattened V by dw flattened and tiled
    (element e takes dw.flat[e % dw.size]): the right column scaling for one matrix, the
    batch's dw interleaved for several (kept as Paddle computes it)."""
    xp = ctx.xp
    if out_v.size == 0:
        return xp.zeros(out_v.shape, out_v.dtype)
    w = xp.reshape(dout_w, (-1,))
    scale = w[xp.arange(out_v.size) % w.size].reshape(out_v.shape)
    with quiet(xp):
        dx = (out_v * scale.astype(out_v.dtype)) @ _h(xp, out_v)
    return _out(xp, dx, out_v.dtype)


@register_kernel("inverse_grad", ("CPU", "GPU"), dtypes=_F)
def inverse_grad(ctx, out: Tensor, out_grad: Tensor) -> Tensor:
    """dA = -Out^H dOut Out^H."""
    xp = ctx.xp
    with quiet(xp):
        return _out(xp, -(_h(xp, out) @ out_grad @ _h(xp, out)), out.dtype)


def _lu_backward(xp, pmat, low, up, gl, gu):
    """PyTorch's linalg_lu_backward (Paddle's LUGradKernel follows it): A = P L U."""
    m, k = low.shape[-2:]
    n = up.shape[-1]
    with quiet(xp):
        if m == n:
            phi = xp.tril(_h(xp, low) @ gl, -1) + xp.triu(gu @ _h(xp, up))
            a = _solve_right(xp, phi, _h(xp, up), upper=False)
            a = _solve_left(xp, _h(xp, low), a, upper=True, unit=True)
        elif m < n:
            u1 = up[..., :, :k]
            phi = _h(xp, low) @ gl - xp.triu(gu) @ _h(xp, up)
            a = _solve_right(xp, xp.tril(phi, -1), _h(xp, u1), upper=False)
            a = xp.concatenate([a + xp.triu(gu[..., :, :k]), gu[..., :, k:]], axis=-1)
            a = _solve_left(xp, _h(xp, low), a, upper=True, unit=True)
        else:
            l1 = low[..., :k, :]
            phi = gu @ _h(xp, up) - _h(xp, low) @ gl
            a = _solve_left(xp, _h(xp, l1), xp.triu(phi), upper=True, unit=True)
            a = xp.concatenate([a + xp.tril(gl[..., :k, :], -1), gl[..., k:, :]], axis=-2)
            a = _solve_right(xp, a, _h(xp, up), upper=False)
        return pmat @ a


@register_kernel("lu_grad", ("CPU", "GPU"), dtypes=_F,
                 input_defs={"pivots": {"dtype": DataType.ALL_DTYPE}})
def lu_grad(ctx, x: Tensor, out: Tensor, pivots: Tensor, out_grad: Tensor,
            pivot: bool) -> Tensor:
    """The packed L\\U's gradient split into dL (strictly lower, [*, m, k]) and dU (upper,
    [*, k, n]), through A = P L U."""
    xp = ctx.xp
    m, n = x.shape[-2:]
    k = min(m, n)
    pmat, low, up = lu_unpack(ctx, out, pivots, True, True)
    gl = xp.tril(out_grad[..., :, :k], -1)
    gu = xp.triu(out_grad[..., :k, :])
    return _out(xp, _lu_backward(xp, pmat, low, up, gl, gu), x.dtype)


@register_kernel("lu_unpack_grad", ("CPU", "GPU"), dtypes=_F,
                 input_defs={"pivots": {"dtype": DataType.ALL_DTYPE}})
def lu_unpack_grad(ctx, x: Tensor, pivots: Tensor, low: Tensor, up: Tensor, pmat: Tensor,
                   l_grad: Tensor | None, u_grad: Tensor | None, unpack_ludata: bool,
                   unpack_pivots: bool) -> Tensor:
    """The packed matrix's gradient: strictly lower part of dL plus upper part of dU."""
    xp = ctx.xp
    m, n = x.shape[-2:]
    k = min(m, n)
    dx = xp.zeros(x.shape, x.dtype)
    if l_grad is not None:
        dx[..., :, :k] += xp.tril(l_grad, -1)
    if u_grad is not None:
        dx[..., :k, :] += xp.triu(u_grad)
    return _out(xp, dx, x.dtype)


@register_kernel("matrix_power_grad", ("CPU", "GPU"), dtypes=_F)
def matrix_power_grad(ctx, x: Tensor, out: Tensor, out_grad: Tensor, n: int) -> Tensor:
    """n = 0: zeros; n > 0: sum_i (X^H)^i dOut (X^H)^(n-1-i); n < 0: the same for X^-1 and
    |n|, then dX = -X^-H dY X^-H."""
    xp = ctx.xp
    if n == 0:
        return xp.zeros(x.shape, x.dtype)
    with quiet(xp):
        base = xp.linalg.inv(x) if n < 0 else x
        base = base.astype(x.dtype, copy=False)
        bh = _h(xp, base)
        p = abs(n)
        powers = [xp.broadcast_to(xp.eye(x.shape[-1], dtype=x.dtype), x.shape)]
        for _ in range(p - 1):
            powers.append(powers[-1] @ bh)
        g = sum(powers[i] @ out_grad @ powers[p - 1 - i] for i in range(p))
        if n < 0:
            g = -(bh @ g @ bh)
    return _out(xp, g, x.dtype)


def _qr_m_gradient(xp, dq, dr, q, r):
    # M = R dR^H - dQ^H Q, made copyltu (tril(M) + tril(M, -1)^H); dA = (dQ + Q M) R^-H
    m = r @ _h(xp, dr) - _h(xp, dq) @ q
    m = xp.tril(m) + _h(xp, xp.tril(m, -1))
    rhs = dq + q @ m
    return _h(xp, _solve_left(xp, r, _h(xp, rhs), upper=True))


@register_kernel("qr_grad", ("CPU", "GPU"), dtypes=_F)
def qr_grad(ctx, x: Tensor, q: Tensor, r: Tensor, q_grad: Tensor | None, r_grad: Tensor | None,
            mode: str) -> Tensor:
    """Paddle's QrGradKernel: m >= n through M = R dR^H - dQ^H Q; m < n with A = [X | Y],
    R = [U | V]: dX from (dQ + Y dV^H, dU), dY = Q dV."""
    xp = ctx.xp
    if mode == "r":
        raise Unimplemented("qr_grad: The derivative of qr is not implemented when mode='r'. "
                            "Please use torch.linalg.qr(A, mode='reduced') if you need it.")
    m, n = x.shape[-2:]
    if mode == "complete" and m > n:
        raise Unimplemented("qr_grad: The derivative of qr is not implemented when "
                            "mode='complete' and nrows > ncols.")
    dq = q_grad if q_grad is not None else xp.zeros(q.shape, q.dtype)
    dr = r_grad if r_grad is not None else xp.zeros(r.shape, r.dtype)
    with quiet(xp):
        if m >= n:
            return _out(xp, _qr_m_gradient(xp, dq, dr, q, r), x.dtype)
        y = x[..., :, m:]
        u = r[..., :, :m]
        dv = dr[..., :, m:]
        dx = _qr_m_gradient(xp, dq + y @ _h(xp, dv), dr[..., :, :m], q, u)
        dy = q @ dv
        return _out(xp, xp.concatenate([dx, dy], axis=-1), x.dtype)


@register_kernel("slogdet_grad", ("CPU", "GPU"), dtypes=_F)
def slogdet_grad(ctx, x: Tensor, out: Tensor, out_grad: Tensor) -> Tensor:
    """d log|det A| = dOut[1] * A^-H (the sign's gradient is 0); when any matrix of the batch
    is singular (log|det| = -inf) Paddle fills the whole gradient with NaN."""
    xp = ctx.xp
    if bool(xp.any(xp.isneginf(out[1]))):
        return xp.full(x.shape, xp.nan, x.dtype)
    with quiet(xp):
        inv = xp.linalg.inv(x)
        g = out_grad[1][..., None, None]
        return _out(xp, g * _h(xp, inv), x.dtype)


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
            dy = xp.linalg.solve(_h(xp, a), g)
        except np.linalg.LinAlgError:
            raise InvalidArgument("solve_grad: Input(X) is not invertible.") from None
        dx = -(dy @ _h(xp, xp.broadcast_to(o, dy.shape)))
    ys = (*y.shape, 1) if vector else y.shape
    dy = xp.reshape(_batch_to(xp, dy, ys), y.shape)
    return _out(xp, _batch_to(xp, dx, x.shape), x.dtype), _out(xp, dy, y.dtype)


@register_kernel("svd_grad", ("CPU", "GPU"), dtypes=_F)
def svd_grad(ctx, x: Tensor, u: Tensor, vh: Tensor, s: Tensor, u_grad: Tensor | None,
             vh_grad: Tensor | None, s_grad: Tensor | None, full_matrices: bool) -> Tensor:
    """Paddle's SvdGradKernel on the k = min(m, n) leading singular vectors:
    dA = U[(F o (U^T dU - dU^T U)) S + diag(dS) + S (F o (V^T dV - dV^T V))]V^T plus the
    (I - U U^T) dU S^-1 V^T and U S^-1 dV^T (I - V V^T) terms, F[i, j] = 1 / (s_j^2 - s_i^2)."""
    xp = ctx.xp
    m, n = x.shape[-2:]
    k = min(m, n)
    u, vh = u[..., :, :k], vh[..., :k, :]
    du = None if u_grad is None else u_grad[..., :, :k]
    dvh = None if vh_grad is None else vh_grad[..., :k, :]
    v = _h(xp, vh)
    t = x.dtype.type
    with quiet(xp):
        s2 = s * s
        f = s2[..., None, :] - s2[..., :, None]
        idx = xp.arange(k)
        f[..., idx, idx] = xp.inf
        f = t(1) / f
        sig = s[..., None, :]  # multiplies columns: M S
        sig_inv = t(1) / s
        inner = xp.zeros((*x.shape[:-2], k, k), x.dtype)
        extra = xp.zeros(x.shape, x.dtype)
        if du is not None:
            utg = _h(xp, u) @ du
            inner = inner + ((utg - _h(xp, utg)) * f) * sig
            if m > k:
                extra = extra + ((du - u @ (_h(xp, u) @ du)) * sig_inv[..., None, :]) @ vh
        if dvh is not None:
            dv = _h(xp, dvh)
            vtg = _h(xp, v) @ dv
            inner = inner + s[..., :, None] * ((vtg - _h(xp, vtg)) * f)
            if n > k:
                extra = extra + (u * sig_inv[..., None, :]) @ (dvh - (dvh @ v) @ vh)
        if s_grad is not None:
            inner[..., idx, idx] += s_grad
        dx = u @ inner @ vh + extra
    return _out(xp, dx, x.dtype)


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
            dy = _solve_left(xp, a, g, upper, unitriangular)
            da = -(o @ _h(xp, dy))
        else:
            dy = _solve_left(xp, _h(xp, a), g, not upper, unitriangular)
            da = -(dy @ _h(xp, o))
        # Paddle's TrilTriuCompute(diagonal = unitriangular): both triangles shift by +1
        k = 1 if unitriangular else 0
        da = xp.triu(da, k) if upper else xp.tril(da, k)
    return _out(xp, _batch_to(xp, da, x.shape), x.dtype), _out(xp, _batch_to(xp, dy, y.shape),
                                                                 y.dtype)
