"""The ``eig`` and ``eig_grad`` kernels."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.linalg import eig_values_vectors

__all__ = ["eig", "eig_grad"]


REAL_COMPLEX = ["float32", "float64", "complex64", "complex128"]


@register_kernel("eig", ("CPU", "GPU"), dtypes=REAL_COMPLEX)
def eig(ctx, x: Tensor) -> tuple[Tensor, Tensor]:
    """Complex eigenvalues and unit eigenvectors (LAPACK geev order and phase)."""
    return eig_values_vectors(ctx, x, "eig")


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
COMPLEX_DTYPES = ["complex64", "complex128"]


@register_kernel("eig_grad", ("CPU",), dtypes=["float32", "float64", *COMPLEX_DTYPES])
def eig_grad(ctx, eigenvalues: Tensor, eigenvectors: Tensor, eigenvalues_grad: Tensor,
             eigenvectors_grad: Tensor) -> Tensor:
    """dA = V^-H (diag(dL) + (V^H dV - V^H V Re(diag(V^H dV))) / conj(L_j - L_i)) V^H
    (the off-diagonal quotient; Paddle's EigGradKernel), batched over leading axes.

    Paddle 2.6.2 quirk, kept (case eig_batch_c128__grad): in a batch, the diag(dL) term of
    every matrix is built from the FIRST matrix's eigenvalue gradient."""
    xp = ctx.xp
    w, v = eigenvalues, eigenvectors
    gw = eigenvalues_grad if eigenvalues_grad is not None else xp.zeros_like(w)
    gv = eigenvectors_grad if eigenvectors_grad is not None else xp.zeros_like(v)
    vh = xp.conj(xp.swapaxes(v, -1, -2))
    vh_gv = vh @ gv
    diag_re = xp.real(xp.diagonal(vh_gv, axis1=-2, axis2=-1))
    tmp = vh_gv - (vh @ v) * diag_re[..., None, :]
    diff = xp.conj(w[..., None, :] - w[..., :, None])
    n = w.shape[-1]
    eye = xp.eye(n, dtype=bool)
    with _quiet(xp):
        quot = xp.where(eye, 0, tmp / xp.where(eye, 1, diff))
    first = gw.reshape(-1, n)[0] if gw.ndim > 1 and gw.size else gw
    inner = quot + xp.eye(n, dtype=v.dtype) * first[..., None, :]
    out = xp.linalg.solve(vh, inner @ vh)
    return xp.ascontiguousarray(out).astype(v.dtype)


def _quiet(xp):
    return xp.errstate(divide="ignore", invalid="ignore")
