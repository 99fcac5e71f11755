"""The ``matrix_rank`` and ``matrix_rank_tol`` kernels."""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["matrix_rank", "matrix_rank_tol"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


def _singular_values(ctx, x, hermitian):
    xp = ctx.xp
    if hermitian:
        return xp.abs(xp.linalg.eigvalsh(x))
    return xp.linalg.svd(x, compute_uv=False)


def _rank(ctx, x, atol, use_default_tol, hermitian):
    """count(sigma > max(atol, rtol * sigma_max)), rtol = eps * max(m, n) by default, 0 else."""
    xp = ctx.xp
    if x.ndim < 2:
        raise InvalidArgument(f"matrix_rank: Input(X) must be of rank >= 2, got "
                              f"{list(x.shape)}.")
    m, n = x.shape[-2:]
    if min(m, n) == 0:
        return xp.zeros(xp.broadcast_shapes(x.shape[:-2], xp.shape(atol)), np.int32)
    s = _singular_values(ctx, x, hermitian).astype(x.dtype)
    rtol = np.finfo(x.dtype).eps * max(m, n) if use_default_tol else 0
    tol = xp.maximum(xp.asarray(atol, x.dtype), rtol * s.max(axis=-1))
    return xp.asarray((s > tol[..., None]).sum(axis=-1), np.int32)


@register_kernel("matrix_rank", ("CPU", "GPU"), dtypes=REAL)
def matrix_rank(ctx, x: Tensor, tol: float, use_default_tol: bool, hermitian: bool) -> Tensor:
    """The number of singular values above the tolerance (int32, dims [*])."""
    return _rank(ctx, x, 0.0 if use_default_tol else tol, use_default_tol, hermitian)


@register_kernel("matrix_rank_tol", ("CPU", "GPU"), dtypes=REAL)
def matrix_rank_tol(ctx, x: Tensor, atol_tensor: Tensor, use_default_tol: bool,
                    hermitian: bool) -> Tensor:
    """matrix_rank with a tensor of absolute tolerances broadcast with the batch."""
    return _rank(ctx, x, atol_tensor, use_default_tol, hermitian)
