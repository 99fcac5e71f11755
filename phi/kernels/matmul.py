"""The matmul kernel (Paddle's paddle/phi/kernels/impl/matmul_kernel_impl.h)."""

from __future__ import annotations

import numpy as np
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["matmul"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
MATMUL_DTYPES = ["float32", "float64", "int32", "int64", "complex64", "complex128"]


@register_kernel("matmul", ("CPU", "GPU"), dtypes=MATMUL_DTYPES)
def matmul(ctx, x: Tensor, y: Tensor, transpose_x: bool, transpose_y: bool) -> Tensor:
    """Batched matrix product; 1-D operands are vectors (their transpose flag is ignored)."""
    xp = ctx.xp
    if xp is np:  # the .mT views skip matrix_transpose's Python wrapper (tiny matrices)
        if transpose_x and x.ndim >= 2:
            x = x.mT
        if transpose_y and y.ndim >= 2:
            y = y.mT
        out = np.matmul(x, y)
        return out if type(out) is np.ndarray else np.asarray(out)
    if transpose_x and x.ndim >= 2:
        x = xp.matrix_transpose(x)
    if transpose_y and y.ndim >= 2:
        y = xp.matrix_transpose(y)
    return xp.asarray(xp.matmul(x, y))


@register_kernel("matmul_with_flatten", ("CPU", "GPU"), dtypes=["float32", "float64"])
def matmul_with_flatten(ctx, x: Tensor, y: Tensor, x_num_col_dims: int,
                        y_num_col_dims: int) -> Tensor:
    """Legacy ``mul``: x and y flattened to matrices at their num_col_dims, multiplied, and the
    result given dims x.dims[:x_num_col_dims] + y.dims[y_num_col_dims:]."""
    xp = ctx.xp
    rows = 1
    for d in x.shape[:x_num_col_dims]:
        rows *= d
    k = 1
    for d in y.shape[:y_num_col_dims]:
        k *= d
    out = xp.matmul(xp.reshape(x, (rows, k)), xp.reshape(y, (k, -1) if k else (0, 1)))
    return xp.reshape(out, tuple(x.shape[:x_num_col_dims]) + tuple(y.shape[y_num_col_dims:]))


__all__ += ["matmul_with_flatten"]
