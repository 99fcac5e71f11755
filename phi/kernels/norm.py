"""The ``norm`` and ``norm_grad`` kernels."""

from __future__ import annotations



from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import (as_array, quiet)

__all__ = ["norm"]


FLOAT_DTYPES = ["float32", "float64"]


@register_kernel("norm", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def norm(ctx, x: Tensor, axis: int, epsilon: float, is_test: bool) -> tuple[Tensor, Tensor]:
    """(x / norm, norm) with norm = sqrt(sum(x * x) + epsilon) along ``axis``."""
    xp = ctx.xp
    axis = axis + x.ndim if axis < 0 else axis
    with quiet(xp):
        eps = ctx.asarray(epsilon, ctx.data_type(x))
        n = xp.sqrt(xp.sum(x * x, axis=axis, keepdims=True) + eps)
        return as_array(xp, x / n), as_array(xp, n)


_F = ["float32", "float64"]


@register_kernel("norm_grad", ("CPU", "GPU"), dtypes=_F)
def norm_grad(ctx, x: Tensor, norm: Tensor, out_grad: Tensor, axis: int, epsilon: float,
              is_test: bool) -> Tensor:
    """Grad of x / norm with norm = sqrt(sum(x^2) + eps) along ``axis``:
    dx = (dout - x * sum(x * dout) / norm^2) / norm."""
    xp = ctx.xp
    ax = axis % x.ndim
    with quiet(xp):
        s = xp.sum(x * out_grad, axis=ax, keepdims=True, dtype=x.dtype)
        n = xp.reshape(norm, s.shape)
        return as_array(xp, (out_grad - x * s / (n * n)) / n)
