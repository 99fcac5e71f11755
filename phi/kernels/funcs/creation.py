"""Helpers shared by the creation kernels of data-dependent size (arange_tensor, linspace,
unique)."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType


__all__ = ["ARANGE_DTYPES", "LINSPACE_DTYPES", "UNIQUE_DTYPES", "host_scalar", "unique_values"]


ARANGE_DTYPES = LINSPACE_DTYPES = UNIQUE_DTYPES = ["float32", "float64", "int32", "int64"]


def host_scalar(ctx, t):
    return np.asarray(ctx.to_host(t)).reshape(-1)[0]


def unique_values(ctx, x, return_index, return_inverse, return_counts, axis, dtype, is_sorted):
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
