"""The ``fill_diagonal_tensor`` and ``fill_diagonal_tensor_grad`` kernels."""

from __future__ import annotations

import math

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import norm_axis
from phi.kernels.diagonal import diagonal
from phi.kernels.funcs import ALL_DTYPES, owned
from phi.kernels.funcs.backward import grad_kernel
from phi.kernels.funcs.manipulation import diag_index

__all__ = ["fill_diagonal_tensor"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json, the ALL_LAYOUT keys)
_ALL12 = list(ALL_DTYPES)


FILL_DIAGONAL_TENSOR_DTYPES = [d for d in _ALL12 if d != "bfloat16"]


@register_kernel("fill_diagonal_tensor", ("CPU", "GPU"), dtypes=FILL_DIAGONAL_TENSOR_DTYPES)
def fill_diagonal_tensor(ctx, x: Tensor, y: Tensor, offset: int, dim1: int,
                         dim2: int) -> Tensor:
    """x with its ``offset`` diagonals of the planes (dim1, dim2) replaced by y (whose last dim
    runs along the diagonal, the other dims over x's remaining dims)."""
    xp = ctx.xp
    d1 = norm_axis(dim1, x.ndim, "fill_diagonal_tensor", "dim1")
    d2 = norm_axis(dim2, x.ndim, "fill_diagonal_tensor", "dim2")
    out = owned(xp, x)
    planes = xp.moveaxis(out, (d1, d2), (-2, -1))  # a view: writing it writes out
    rows, cols = diag_index(xp, x.shape[d1], x.shape[d2], offset)
    batch = math.prod(planes.shape[:-2])
    want = (batch, int(rows.shape[0]))
    got = (math.prod(y.shape[:-1]), y.shape[-1]) if y.ndim else (1, 1)
    if y.ndim == 0 or got != want:
        raise InvalidArgument(f"The dims should be {want[0]} x {want[1]}, but get "
                              f"{got[0]} x {got[1]} in fill tensor Y")
    planes[..., rows, cols] = xp.reshape(y, (*planes.shape[:-2], want[1]))
    return out


@grad_kernel("fill_diagonal_tensor_grad", ("CPU", "GPU"),
                 dtypes=["bool", "float32", "float64", "int8", "uint8", "int16", "int32",
                         "int64", "float16", "complex64", "complex128"])
def fill_diagonal_tensor_grad(ctx, out_grad: Tensor, offset: int, dim1: int,
                              dim2: int) -> Tensor:
    """out_grad with the filled diagonal zeroed."""
    xp = ctx.xp
    ids = xp.reshape(xp.arange(out_grad.size, dtype=np.int64), out_grad.shape)
    hit = diagonal(ctx, ids, offset, dim1, dim2)
    x_grad = xp.reshape(xp.asarray(out_grad, copy=True), (-1,))
    x_grad[xp.reshape(hit, (-1,))] = 0
    return xp.reshape(x_grad, out_grad.shape)
