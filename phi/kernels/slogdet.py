"""The ``slogdet`` and ``slogdet_grad`` kernels."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import square_dims
from phi.kernels.funcs import quiet
from phi.kernels.funcs.linalg import conj_transpose, contiguous_as

__all__ = ["slogdet"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


@register_kernel("slogdet", ("CPU", "GPU"), dtypes=REAL)
def slogdet(ctx, x: Tensor) -> Tensor:
    """[2, *batch]: sign(det) then log|det| (a singular matrix: 0 and -inf)."""
    xp = ctx.xp
    square_dims(x.shape, "slogdeterminant", "Input")
    sign, logdet = xp.linalg.slogdet(x)
    return xp.stack([xp.asarray(sign, x.dtype), xp.asarray(logdet, x.dtype)])


_F = ["float32", "float64"]


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
        return contiguous_as(xp, g * conj_transpose(xp, inv), x.dtype)
