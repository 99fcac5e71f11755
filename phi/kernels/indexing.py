"""Indexing kernels: gather, gather_nd, index_select, embedding (Paddle's
paddle/phi/kernels/cpu/{gather,gather_nd,index_select,embedding}_kernel.cc, funcs/gather.h).

Index tensors (int32 or int64) are not tied to the kernel dtype (ALL_DTYPE).  Out-of-range
indices raise InvalidArgument as Paddle's CPU kernels do; gather_nd also takes negative indices.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["embedding", "gather", "gather_nd", "index_select"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
GATHER_DTYPES = ["float32", "float64", "int32", "int64", "uint8", "bfloat16"]
GATHER_ND_DTYPES = ["float32", "float64", "int64", "int32", "int16", "uint8", "int8", "bool",
                    "complex64", "complex128"]
INDEX_SELECT_DTYPES = ["float32", "float64", "bfloat16", "int32", "int64", "complex64",
                       "complex128"]
EMBEDDING_DTYPES = ["float32", "float64", "int8", "float16", "bfloat16"]
_ANY_INDEX = {"index": {"dtype": DataType.ALL_DTYPE}}


def _check_range(xp, index, size: int, what: str, allow_negative: bool = False) -> None:
    if index.size == 0:
        return
    lo, hi = int(xp.min(index)), int(xp.max(index))
    low = -size if allow_negative else 0
    if lo < low or hi >= size:
        bad = lo if lo < low else hi
        raise InvalidArgument(f"{what} expected >= {low} and < {size}, but got {bad}. Please "
                              "check input value.")


@register_kernel("gather", ("CPU", "GPU"), dtypes=GATHER_DTYPES, input_defs=_ANY_INDEX)
def gather(ctx, x: Tensor, index: Tensor, axis: Scalar) -> Tensor:
    """x's slices at ``index`` along ``axis`` (a 0-D index removes the axis)."""
    xp = ctx.xp
    ax = int(axis.value if isinstance(axis, Scalar) else axis)
    ax = ax + x.ndim if ax < 0 else ax
    _check_range(xp, index, x.shape[ax], "The index of gather")
    idx = xp.reshape(index, ()) if index.ndim == 0 else xp.reshape(index, (-1,))
    return xp.take(x, idx, axis=ax)


@register_kernel("gather_nd", ("CPU", "GPU"), dtypes=GATHER_ND_DTYPES, input_defs=_ANY_INDEX)
def gather_nd(ctx, x: Tensor, index: Tensor) -> Tensor:
    """x[index[..., 0], index[..., 1], ...]: out dims index.dims[:-1] + x.dims[index.dims[-1]:];
    negative indices count from the end."""
    xp = ctx.xp
    depth = index.shape[-1] if index.ndim else 0
    coords = []
    for j in range(depth):
        c = index[..., j]
        _check_range(xp, c, x.shape[j], f"Input(index[-1]) at {j} of gather_nd",
                     allow_negative=True)
        coords.append(xp.where(c < 0, c + x.shape[j], c))
    if not coords:  # index [..., 0]: every batch element takes the whole x
        return xp.broadcast_to(x, tuple(index.shape[:-1]) + tuple(x.shape)).copy()
    return xp.asarray(x[tuple(coords)], copy=True)


@register_kernel("index_select", ("CPU", "GPU"), dtypes=INDEX_SELECT_DTYPES,
                 input_defs=_ANY_INDEX)
def index_select(ctx, x: Tensor, index: Tensor, dim: int) -> Tensor:
    """x's slices at ``index`` along ``dim``."""
    xp = ctx.xp
    ax = dim + x.ndim if dim < 0 else dim
    _check_range(xp, index, x.shape[ax], "Variable value (index) of OP(index_select)")
    return xp.take(x, xp.reshape(index, (-1,)), axis=ax)


@register_kernel("embedding", ("CPU", "GPU"), dtypes=EMBEDDING_DTYPES,
                 input_defs={"x": {"dtype": DataType.ALL_DTYPE}})
def embedding(ctx, x: Tensor, weight: Tensor, padding_idx: int) -> Tensor:
    """weight's rows at the ids ``x`` (out dims x.dims + [width]); ids equal to
    ``padding_idx`` (not -1) give zero rows."""
    xp = ctx.xp
    if xp is np and x.size:  # the same, through ufunc reductions and array methods (cheaper)
        ids = x.reshape(-1)
        lo, hi, size = int(np.minimum.reduce(ids)), int(np.maximum.reduce(ids)), weight.shape[0]
        if lo >= 0 and hi < size:
            out = weight.take(ids, axis=0)
            if padding_idx != -1:
                out[ids == padding_idx] = 0
            return out.reshape(*x.shape, weight.shape[1])
    _check_range(xp, x, weight.shape[0], "Variable value (input) of OP(fluid.layers.embedding)")
    out = xp.take(weight, xp.reshape(x, (-1,)), axis=0)
    if padding_idx != -1:
        out = xp.where(xp.reshape(x, (-1, 1)) == padding_idx, weight.dtype.type(0), out)
    return xp.reshape(out, (*tuple(x.shape), weight.shape[1]))
