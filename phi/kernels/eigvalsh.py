"""The ``eigvalsh`` and ``eigvalsh_grad`` kernels."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import square_dims
from phi.kernels.funcs import quiet
from phi.kernels.funcs.linalg import conj_transpose, contiguous_as, real_dtype_of

__all__ = ["eigvalsh"]


REAL_COMPLEX = ["float32", "float64", "complex64", "complex128"]


@register_kernel("eigvalsh", ("CPU", "GPU"), dtypes=REAL_COMPLEX)
def eigvalsh(ctx, x: Tensor, uplo: str, is_test: bool) -> tuple[Tensor, Tensor]:
    """Ascending eigenvalues; the eigenvectors too unless ``is_test`` (dims [0] then)."""
    square_dims(x.shape, "eigvalsh")
    w, v = ctx.xp.linalg.eigh(x, UPLO=uplo)
    v = ctx.xp.zeros((0,), x.dtype) if is_test else v.astype(x.dtype)
    return w.astype(real_dtype_of(x)), v


_FC = ["float32", "float64", "complex64", "complex128"]


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
        dx = (out_v * scale.astype(out_v.dtype)) @ conj_transpose(xp, out_v)
    return contiguous_as(xp, dx, out_v.dtype)
