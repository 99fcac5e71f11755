"""The ``unique`` and ``unique_raw`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.creation import UNIQUE_DTYPES

__all__ = ["unique", "unique_raw"]


_INDEX_OUTS = {i: {"dtype": DataType.UNDEFINED} for i in (1, 2, 3)}


def _unique(ctx, x, return_index, return_inverse, return_counts, axis, dtype, is_sorted):
    xp = ctx.xp
    idx_dtype = DataType.INT32 if dtype is DataType.INT32 else DataType.INT64
    host = np.asarray(ctx.to_host(x)) if xp is not np else x
    if axis:
        ax = axis[0] % host.ndim
        out, first, inverse, counts = np.unique(host, return_index=True, return_inverse=True,
                                                return_counts=True, axis=ax)
    else:
        flat = host.reshape(-1)
        out, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True,
                                                return_counts=True)
        if not is_sorted:  # unique_raw's old behaviour: values in order of first appearance
            order = np.argsort(first, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(order.size)
            out, first, counts, inverse = out[order], first[order], counts[order], rank[inverse]
    results = [out, first, inverse.reshape(-1), counts]
    for i in (1, 2, 3):
        results[i] = results[i].astype(idx_dtype.to_numpy())
    if xp is not np:
        results = [ctx.from_host(r) for r in results]
    return tuple(results)


@register_kernel("unique", ("CPU", "GPU"), dtypes=UNIQUE_DTYPES, output_defs=_INDEX_OUTS)
def unique(ctx, x: Tensor, return_index: bool, return_inverse: bool, return_counts: bool,
           axis: list[int], dtype: DataType) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(sorted unique values, index of each one's first occurrence, index of each element's
    value in the unique ones, counts), of x flattened or of the slices along ``axis``."""
    return _unique(ctx, x, return_index, return_inverse, return_counts, axis, dtype, True)


@register_kernel("unique_raw", ("CPU", "GPU"), dtypes=UNIQUE_DTYPES, output_defs=_INDEX_OUTS)
def unique_raw(ctx, x: Tensor, return_index: bool, return_inverse: bool, return_counts: bool,
               axis: list[int], dtype: DataType,
               is_sorted: bool) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """``unique``; without ``is_sorted`` the values come in order of first appearance."""
    return _unique(ctx, x, return_index, return_inverse, return_counts, axis, dtype, is_sorted)
