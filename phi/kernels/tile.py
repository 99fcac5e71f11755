"""The ``tile`` and ``tile_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import tile_out_dims
from phi.kernels.funcs.backward import adjoint, grad_kernel

__all__ = ["tile"]


TILE_DTYPES = ["bool", "float32", "float64", "int32", "int64", "complex64", "complex128"]


@register_kernel("tile", ("CPU", "GPU"), dtypes=TILE_DTYPES)
def tile(ctx, x: Tensor, repeat_times: IntArray) -> Tensor:
    """x repeated ``repeat_times`` times along each axis (numpy's tile)."""
    xp = ctx.xp
    dims = tile_out_dims(x.shape, repeat_times.data)
    reps = [1] * (len(dims) - len(repeat_times.data)) + list(repeat_times.data)
    if xp is np and len(dims) == x.ndim and all(
            r == 1 or n == 1 for r, n in zip(reps, x.shape, strict=True)):
        # every repeated axis has size 1: the tiling is a broadcast (np.tile's Python wrapper
        # costs more than the copy for the small tensors of decoder loops)
        return np.broadcast_to(x, tuple(dims)).copy()
    return xp.reshape(xp.tile(x, tuple(reps)), dims)


@grad_kernel("tile_grad", ("CPU", "GPU"),
                 dtypes=["bool", "float32", "float64", "int32", "int64"])
def tile_grad(ctx, x: Tensor, out_grad: Tensor, repeat_times: IntArray) -> Tensor:
    """out_grad summed over the repeats."""
    return adjoint(ctx, x.shape, out_grad, lambda ids: tile(ctx, ids, repeat_times))
