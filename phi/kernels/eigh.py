"""The ``eigh`` and ``eigh_grad`` kernels."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import square_dims
from phi.kernels.funcs import quiet
from phi.kernels.funcs.linalg import conj_transpose, contiguous_as, real_dtype_of

__all__ = ["eigh"]


REAL_COMPLEX = ["float32", "float64", "complex64", "complex128"]


@register_kernel("eigh", ("CPU", "GPU"), dtypes=REAL_COMPLEX)
def eigh(ctx, x: Tensor, uplo: str) -> tuple[Tensor, Tensor]:
    """Ascending eigenvalues and orthonormal eigenvectors of the ``uplo`` triangle."""
    square_dims(x.shape, "eigh")
    w, v = ctx.xp.linalg.eigh(x, UPLO=uplo)
    return w.astype(real_dtype_of(x)), v.astype(x.dtype)


_FC = ["float32", "float64", "complex64", "complex128"]


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
            r = conj_transpose(xp, v) @ dout_v
            r = (r - conj_transpose(xp, r)) * r.real.dtype.type(0.5)
            e = out_w[..., None, :] - out_w[..., :, None]
            r = r / e.astype(r.dtype)
        else:
            r = xp.zeros(v.shape, v.dtype)
        # Paddle's DiagFill reads scale[index % m]: every matrix of a batch gets the FIRST
        # matrix's eigenvalue gradients on its diagonal (kept as Paddle computes it)
        r[..., idx, idx] = xp.reshape(dout_w, (-1,))[:n] if dout_w is not None else 0
        dx = v @ r @ conj_transpose(xp, v)
    return contiguous_as(xp, dx, v.dtype)
