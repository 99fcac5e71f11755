"""The ``qr`` and ``qr_grad`` kernels."""

from __future__ import annotations


from phi.core.errors import Unimplemented
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import qr_out_dims
from phi.kernels.funcs import quiet
from phi.kernels.funcs.linalg import conj_transpose, contiguous_as, solve_left

__all__ = ["qr"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


@register_kernel("qr", ("CPU", "GPU"), dtypes=REAL)
def qr(ctx, x: Tensor, mode: str) -> tuple[Tensor, Tensor]:
    """Householder QR; mode reduced / complete / r (no Q: dims [0])."""
    xp = ctx.xp
    qd, rd = qr_out_dims(x.shape, mode)
    if x.size == 0:
        return xp.zeros(qd, x.dtype), xp.zeros(rd, x.dtype)
    if mode == "r":
        return xp.zeros(qd, x.dtype), xp.linalg.qr(x, mode="r").astype(x.dtype)
    q, r = xp.linalg.qr(x, mode=mode)
    return q.astype(x.dtype), r.astype(x.dtype)


_F = ["float32", "float64"]


def _qr_m_gradient(xp, dq, dr, q, r):
    # M = R dR^H - dQ^H Q, made copyltu (tril(M) + tril(M, -1)^H); dA = (dQ + Q M) R^-H
    m = r @ conj_transpose(xp, dr) - conj_transpose(xp, dq) @ q
    m = xp.tril(m) + conj_transpose(xp, xp.tril(m, -1))
    rhs = dq + q @ m
    return conj_transpose(xp, solve_left(xp, r, conj_transpose(xp, rhs), upper=True))


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
            return contiguous_as(xp, _qr_m_gradient(xp, dq, dr, q, r), x.dtype)
        y = x[..., :, m:]
        u = r[..., :, :m]
        dv = dr[..., :, m:]
        dx = _qr_m_gradient(xp, dq + y @ conj_transpose(xp, dv), dr[..., :, :m], q, u)
        dy = q @ dv
        return contiguous_as(xp, xp.concatenate([dx, dy], axis=-1), x.dtype)
