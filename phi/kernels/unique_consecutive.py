"""The ``unique_consecutive`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.indexing import to_device, to_host

__all__ = ["unique_consecutive"]


FIIL = ["float32", "float64", "int32", "int64"]


@register_kernel("unique_consecutive", ("CPU", "GPU"), dtypes=FIIL,
                 output_defs={1: {"dtype": DataType.UNDEFINED}, 2: {"dtype": DataType.UNDEFINED}})
def unique_consecutive(ctx, x: Tensor, return_inverse: bool, return_counts: bool,
                       axis: list[int], dtype: DataType) -> tuple[Tensor, Tensor, Tensor]:
    """(x without consecutive repeats, each element's group index, each group's size), of x
    flattened or of its slices along ``axis``; index outputs of ``dtype``."""
    h = to_host(ctx, x)
    idx_dtype = np.int32 if dtype is DataType.INT32 else np.int64
    if axis:
        ax = axis[0] + h.ndim if axis[0] < 0 else axis[0]
        if not 0 <= ax < h.ndim:
            raise InvalidArgument(f"unique_consecutive: axis {axis[0]} is out of range for rank "
                                  f"{h.ndim}.")
        moved = np.moveaxis(h, ax, 0).reshape(h.shape[ax], -1)
        change = (moved[1:] != moved[:-1]).any(axis=1) if moved.shape[1] else \
            np.zeros(max(moved.shape[0] - 1, 0), bool)
    else:
        moved = h.reshape(-1)
        change = moved[1:] != moved[:-1]
    n = moved.shape[0]
    starts = np.r_[0, np.nonzero(change)[0] + 1] if n else np.zeros(0, np.int64)
    counts = np.diff(np.r_[starts, n]).astype(idx_dtype)
    inverse = (np.cumsum(np.r_[0, change.astype(np.int64)]) if n else
               np.zeros(0, np.int64)).astype(idx_dtype)
    out = np.take(h, starts, axis=ax) if axis else moved[starts]
    return to_device(ctx, out), to_device(ctx, inverse), to_device(ctx, counts)
