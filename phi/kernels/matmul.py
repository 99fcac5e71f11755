"""The matmul kernel (Paddle's paddle/phi/kernels/impl/matmul_kernel_impl.h)."""

from __future__ import annotations

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["matmul"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
MATMUL_DTYPES = ["float32", "float64", "int32", "int64", "complex64", "complex128"]


@register_kernel("matmul", ("CPU", "GPU"), dtypes=MATMUL_DTYPES)
def matmul(ctx, x: Tensor, y: Tensor, transpose_x: bool, transpose_y: bool) -> Tensor:
    """Batched matrix product; 1-D operands are vectors (their transpose flag is ignored)."""
    xp = ctx.xp
    if transpose_x and x.ndim >= 2:
        x = xp.matrix_transpose(x)
    if transpose_y and y.ndim >= 2:
        y = xp.matrix_transpose(y)
    return xp.asarray(xp.matmul(x, y))
