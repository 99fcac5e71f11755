"""The ``svd`` and ``svd_grad`` kernels."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet
from phi.kernels.funcs.linalg import conj_transpose, contiguous_as

__all__ = ["svd"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


@register_kernel("svd", ("CPU", "GPU"), dtypes=REAL)
def svd(ctx, x: Tensor, full_matrices: bool) -> tuple[Tensor, Tensor, Tensor]:
    """U, S (descending), VH with x = U diag(S) VH (LAPACK gesdd, as Paddle)."""
    u, s, vh = ctx.xp.linalg.svd(x, full_matrices=full_matrices)
    return u.astype(x.dtype), s.astype(x.dtype), vh.astype(x.dtype)


_F = ["float32", "float64"]


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
    v = conj_transpose(xp, vh)
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
            utg = conj_transpose(xp, u) @ du
            inner = inner + ((utg - conj_transpose(xp, utg)) * f) * sig
            if m > k:
                u_h = conj_transpose(xp, u)
                extra = extra + ((du - u @ (u_h @ du)) * sig_inv[..., None, :]) @ vh
        if dvh is not None:
            dv = conj_transpose(xp, dvh)
            vtg = conj_transpose(xp, v) @ dv
            inner = inner + s[..., :, None] * ((vtg - conj_transpose(xp, vtg)) * f)
            if n > k:
                extra = extra + (u * sig_inv[..., None, :]) @ (dvh - (dvh @ v) @ vh)
        if s_grad is not None:
            inner[..., idx, idx] += s_grad
        dx = u @ inner @ vh + extra
    return contiguous_as(xp, dx, x.dtype)
