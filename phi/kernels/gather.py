"""The ``gather`` and ``gather_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import adjoint, grad_kernel, sum_into
from phi.kernels.funcs.indexing import check_index_range, flat_index

__all__ = ["gather"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
GATHER_DTYPES = ["float32", "float64", "int32", "int64", "uint8", "bfloat16"]


_ANY_INDEX = {"index": {"dtype": DataType.ALL_DTYPE}}


@register_kernel("gather", ("CPU", "GPU"), dtypes=GATHER_DTYPES, input_defs=_ANY_INDEX)
def gather(ctx, x: Tensor, index: Tensor, axis: Scalar) -> Tensor:
    """x's slices at ``index`` along ``axis`` (a 0-D index removes the axis)."""
    xp = ctx.xp
    ax = int(axis.value if isinstance(axis, Scalar) else axis)
    ax = ax + x.ndim if ax < 0 else ax
    check_index_range(xp, index, x.shape[ax], "The index of gather")
    idx = xp.reshape(index, ()) if index.ndim == 0 else xp.reshape(index, (-1,))
    return xp.take(x, idx, axis=ax)


_ANY = {"dtype": DataType.ALL_DTYPE}


# -- gathers: the gradient scatter-added back ---------------------------------------------------

@grad_kernel("gather_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "uint8", "bfloat16"],
                 input_defs={"index": _ANY})
def gather_grad(ctx, x: Tensor, index: Tensor, out_grad: Tensor, axis: Scalar) -> Tensor:
    """out_grad summed into the rows (along ``axis``) that gather read.  For an axis other
    than 0 Paddle's GatherV2GradFunction reads out_grad's first block (the elements before
    ``axis`` at 0) for every block: kept, its results are what programs got."""
    ax = int(axis)
    ax = ax + x.ndim if ax < 0 else ax
    if ax == 0:
        return adjoint(ctx, x.shape, out_grad,
                       lambda ids: gather(ctx, ids, index, axis))
    xp = ctx.xp
    idx = flat_index(ctx, index)
    inner = int(np.prod(x.shape[:ax], dtype=np.int64))
    outer = int(np.prod(x.shape[ax + 1:], dtype=np.int64))
    first = xp.reshape(out_grad, (-1,))[: idx.size * outer]
    pos = (np.arange(inner)[:, None, None] * x.shape[ax] * outer
           + idx[None, :, None] * outer + np.arange(outer)[None, None, :])
    vals = xp.broadcast_to(xp.reshape(first, (1, idx.size, outer)), pos.shape)
    return xp.reshape(sum_into(ctx, x.size, pos, vals, out_grad), x.shape)
