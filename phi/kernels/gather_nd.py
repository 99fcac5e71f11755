"""The ``gather_nd`` and ``gather_nd_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import adjoint, grad_kernel
from phi.kernels.funcs.indexing import check_index_range

__all__ = ["gather_nd"]


GATHER_ND_DTYPES = ["float32", "float64", "int64", "int32", "int16", "uint8", "int8", "bool",
                    "complex64", "complex128"]


_ANY_INDEX = {"index": {"dtype": DataType.ALL_DTYPE}}


@register_kernel("gather_nd", ("CPU", "GPU"), dtypes=GATHER_ND_DTYPES, input_defs=_ANY_INDEX)
def gather_nd(ctx, x: Tensor, index: Tensor) -> Tensor:
    """x[index[..., 0], index[..., 1], ...]: out dims index.dims[:-1] + x.dims[index.dims[-1]:];
    negative indices count from the end."""
    xp = ctx.xp
    depth = index.shape[-1] if index.ndim else 0
    if xp is np and depth and index.size and depth <= x.ndim:
        # every coordinate checked and wrapped at once (small batches: the per-axis loop
        # below costs ~30 us); a bad one takes the loop, which names its axis
        dims = np.array(x.shape[:depth])
        flat = index.reshape(-1, depth)
        if not ((flat.min(axis=0) < -dims).any() or (flat.max(axis=0) >= dims).any()):
            wrapped = np.where(index < 0, index + dims, index)
            return np.array(x[tuple(wrapped[..., j] for j in range(depth))], copy=True)
    coords = []
    for j in range(depth):
        c = index[..., j]
        check_index_range(xp, c, x.shape[j], f"Input(index[-1]) at {j} of gather_nd",
                          allow_negative=True)
        coords.append(xp.where(c < 0, c + x.shape[j], c))
    if not coords:  # index [..., 0]: every batch element takes the whole x
        return xp.broadcast_to(x, tuple(index.shape[:-1]) + tuple(x.shape)).copy()
    return xp.asarray(x[tuple(coords)], copy=True)


_ANY = {"dtype": DataType.ALL_DTYPE}


@grad_kernel("gather_nd_grad", ("CPU", "GPU"),
                 dtypes=["bool", "float32", "float64", "int8", "uint8", "int16", "int32",
                         "int64", "complex64", "complex128"], input_defs={"index": _ANY})
def gather_nd_grad(ctx, x: Tensor, index: Tensor, out_grad: Tensor) -> Tensor:
    """out_grad summed into the slices that gather_nd read."""
    return adjoint(ctx, x.shape, out_grad, lambda ids: gather_nd(ctx, ids, index))
