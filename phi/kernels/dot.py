"""The ``dot`` and ``dot_grad`` kernels."""

from __future__ import annotations

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet
from phi.kernels.funcs.matmul import conj_if_complex

__all__ = ["dot"]


_FIC = ["float32", "float64", "int32", "int64", "complex64", "complex128"]


@register_kernel("dot", ("CPU", "GPU"), dtypes=_FIC)
def dot(ctx, x: Tensor, y: Tensor) -> Tensor:
    """Row-wise sum of x * y over the last dim (no conjugation of complex x)."""
    xp = ctx.xp
    with quiet(xp):
        return as_array(xp, xp.sum(x * y, axis=-1, dtype=x.dtype))


@register_kernel("dot_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "int32", "int64",
                                                     "complex64", "complex128"])
def dot_grad(ctx, x: Tensor, y: Tensor, out_grad: Tensor) -> tuple[Tensor, Tensor]:
    """dx = dout * conj(y), dy = dout * conj(x), dout broadcast along the last dim."""
    xp = ctx.xp
    g = xp.reshape(out_grad, (*x.shape[:-1], 1))
    with quiet(xp):
        return as_array(xp, g * conj_if_complex(ctx, y)), as_array(xp, g * conj_if_complex(ctx, x))
