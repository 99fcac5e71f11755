"""Kernels whose output size depends on input values: arange_tensor (legacy range), linspace,
unique (Paddle's paddle/phi/kernels/cpu/{arange,linspace,unique}_kernel.cc).

Their InferMeta leaves the data-dependent dims at -1, as Paddle's does; the kernels decide.
"""

from __future__ import annotations

import math

import numpy as np

from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import INTEGERS, cast_array

__all__ = ["arange_tensor", "linspace", "unique", "unique_raw"]

ARANGE_DTYPES = LINSPACE_DTYPES = UNIQUE_DTYPES = ["float32", "float64", "int32", "int64"]
_HOST = {"dtype": DataType.ALL_DTYPE, "backend": Backend.ALL_BACKEND}


def _scalar(ctx, t):
    return np.asarray(ctx.to_host(t)).reshape(-1)[0]


@register_kernel("arange_tensor", ("CPU", "GPU"), dtypes=ARANGE_DTYPES,
                 input_defs={"start": _HOST, "end": _HOST, "step": _HOST})
def arange_tensor(ctx, start: Tensor, end: Tensor, step: Tensor) -> Tensor:
    """start, start + step, ... below end (above it for a negative step), accumulated in the
    dtype as Paddle's loop does (value += step)."""
    dtype = ctx.data_type(start)
    s, e, d = (_scalar(ctx, t) for t in (start, end, step))
    if d == 0:
        raise InvalidArgument("The step of range op should not be 0.")
    if (s < e and d < 0) or (s > e and d > 0):
        raise InvalidArgument("The step should be greater than 0 while start < end. And the "
                              "step should be less than 0 while start > end.")
    if dtype in INTEGERS:
        size = (abs(int(e) - int(s)) + abs(int(d)) - 1) // abs(int(d))
    else:
        size = math.ceil(abs((e - s) / d))
    steps = np.full(size, d, dtype=np.asarray(s).dtype)
    if size:
        steps[0] = s
    with np.errstate(all="ignore"):
        values = np.cumsum(steps, dtype=steps.dtype)
    return ctx.from_host(values) if ctx.xp is not np else values


@register_kernel("linspace", ("CPU", "GPU"), dtypes=LINSPACE_DTYPES,
                 input_defs={"start": _HOST, "stop": _HOST, "number": _HOST})
def linspace(ctx, start: Tensor, stop: Tensor, number: Tensor, dtype: DataType) -> Tensor:
    """``number`` evenly spaced values from start to stop in ``dtype``: the first half counted
    up from start, the rest down from stop, with a double step (Paddle's loop)."""
    np_dtype = dtype.to_numpy()
    s = np.asarray(_scalar(ctx, start)).astype(np_dtype)
    e = np.asarray(_scalar(ctx, stop)).astype(np_dtype)
    num = int(_scalar(ctx, number))
    if num <= 0:
        raise InvalidArgument(f"The num of linspace op should be larger than 0, but received "
                              f"num is {num}")
    if num == 1:
        values = np.array([s], np_dtype)
    else:
        with np.errstate(all="ignore"):
            step = float(e - s) / (num - 1)  # (double)(stop - start) / (num - 1)
            i = np.arange(num, dtype=np.float64)
            half = num // 2
            raw = np.where(i < half, float(s) + step * i, float(e) - step * (num - i - 1))
        return cast_array(ctx, raw if ctx.xp is np else ctx.from_host(raw), dtype)
    return ctx.from_host(values) if ctx.xp is not np else values


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
