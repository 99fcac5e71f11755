"""Window ops beside conv and pool (Paddle's paddle/phi/kernels/cpu/ and funcs/pooling.cc,
unpooling.cc, im2col.cc): max_pool2d/3d_with_index, unpool / unpool3d, unfold, fold, maxout.

Windows are walked tap by tap (a loop over the window's positions, never over pixels or
channels), in the order Paddle's loops visit them, with per-axis position arrays and validity
masks: the arithmetic of every window is written once, per axis, with C++ semantics.
"""

from __future__ import annotations

import itertools

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.nn import adaptive_bounds
from phi.infermeta.window import max_pool_with_index_geometry

__all__ = ["max_pool2d_with_index", "max_pool3d_with_index", "unpool", "unpool3d"]

# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
FLOAT_DTYPES = ["float32", "float64"]

_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}
"""Indices arrive in their own dtype (int32 is checked by the kernel, as Paddle's data<int>)."""

FLT_MAX = 3.4028234663852886e38
"""C's FLT_MAX: the max pools' initial value (-FLT_MAX, for double too)."""


def _axis_windows(xp, size: int, n_out: int, k: int, stride: int, pad: int, adaptive: bool):
    """(start [n_out], taps per window) of one axis: MaxPool*WithIndexFunctor's hstart before
    clamping, so that tap t of window o reads position start[o] + t when that lies in
    [max(start, 0), end)."""
    if adaptive:
        bounds = [adaptive_bounds(i, size, n_out) for i in range(n_out)]
        start = xp.asarray([b[0] for b in bounds])
        end = xp.asarray([b[1] for b in bounds])
        return start, end, max(b[1] - b[0] for b in bounds)
    start = xp.arange(n_out) * stride - pad
    return start, xp.minimum(start + k, size), k


def max_pool_with_index(ctx, x, kernel_size, strides, paddings, global_pooling: bool,
                        adaptive: bool):
    """MaxPool2d/3dWithIndexFunctor: per window, the first maximum in row-major order (strict
    ``<``: NaN is never taken) and its flat index in the input plane / volume; windows without
    an element give -FLT_MAX and index -1."""
    xp = ctx.xp
    spatial = x.shape[2:]
    ksize, pads, out_sizes = max_pool_with_index_geometry(spatial, kernel_size, strides,
                                                          paddings, global_pooling, adaptive)
    n, c = x.shape[:2]
    best = xp.full((n, c, *out_sizes), -FLT_MAX, dtype=x.dtype)
    index = xp.full((n, c, *out_sizes), -1, dtype=ctx.xp_dtype(DataType.INT32))
    if 0 in best.shape:
        return best, index
    nd = len(spatial)
    axes = [_axis_windows(xp, spatial[i], out_sizes[i], ksize[i], strides[i], pads[i],
                          adaptive) for i in range(nd)]
    plane = [1] * nd  # element strides of the flattened plane / volume
    for i in range(nd - 2, -1, -1):
        plane[i] = plane[i + 1] * spatial[i + 1]
    for tap in itertools.product(*(range(a[2]) for a in axes)):
        where, flat, ok = [], 0, True
        for i, (t, (start, end, _)) in enumerate(zip(tap, axes, strict=True)):
            pos = start + t
            shape = [1] * nd
            shape[i] = -1
            valid = xp.reshape((pos >= 0) & (pos < end), shape)
            pos = xp.reshape(xp.clip(pos, 0, spatial[i] - 1), shape)
            where.append(pos)
            flat = flat + pos * plane[i]
            ok = ok & valid
        value = x[(slice(None), slice(None), *where)]
        take = ok & (best < value)
        best = xp.where(take, value, best)
        index = xp.where(take, flat.astype(index.dtype), index)
    return best, index


@register_kernel("max_pool2d_with_index", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def max_pool2d_with_index(ctx, x: Tensor, kernel_size: list[int], strides: list[int],
                          paddings: list[int], global_pooling: bool,
                          adaptive: bool) -> tuple[Tensor, Tensor]:
    """Max pooling of NCHW x with the int32 index (h * W + w) of each maximum."""
    return max_pool_with_index(ctx, x, kernel_size, strides, paddings, global_pooling,
                               adaptive)


@register_kernel("max_pool3d_with_index", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def max_pool3d_with_index(ctx, x: Tensor, kernel_size: list[int], strides: list[int],
                          paddings: list[int], global_pooling: bool,
                          adaptive: bool) -> tuple[Tensor, Tensor]:
    """Max pooling of NCDHW x with the int32 index ((d * H + h) * W + w) of each maximum."""
    return max_pool_with_index(ctx, x, kernel_size, strides, paddings, global_pooling,
                               adaptive)


def unpool_compute(ctx, op: str, x, indices, output_size):
    """Unpool2dMax / Unpool3dMax: a zero [N, C, *output_size] output where element i of each
    (n, c) plane of x goes to flat position indices[n, c, i] (a later duplicate wins)."""
    xp = ctx.xp
    if ctx.data_type(indices) is not DataType.INT32:
        raise InvalidArgument(
            f"Op({op}): Input(Indices) must be int32 (the kernel reads it as int), but "
            f"received {ctx.data_type(indices)}.")
    n, c = x.shape[:2]
    size = 1
    for o in output_size:
        size *= int(o)
    out = xp.zeros((n, c, size), dtype=x.dtype)
    idx = xp.reshape(indices, (n, c, -1))
    if idx.size:
        lo, hi = int(xp.min(idx)), int(xp.max(idx))
        if hi >= size or lo < 0:  # Paddle checks < size only; a negative one writes outside
            bad = hi if hi >= size else lo
            raise InvalidArgument(
                f"Op({op}): index should be in [0, {size}) (the output's plane / volume), but "
                f"got {bad}. Please check input value.")
        rows = xp.arange(n)[:, None, None]
        cols = xp.arange(c)[None, :, None]
        out[rows, cols, idx] = xp.reshape(x, (n, c, -1))
    return xp.reshape(out, (n, c, *[int(o) for o in output_size]))


@register_kernel("unpool", ("CPU", "GPU"), dtypes=FLOAT_DTYPES,
                 input_defs={"indices": _ANY_DTYPE})
def unpool(ctx, x: Tensor, indices: Tensor, ksize: list[int], strides: list[int],
           paddings: list[int], output_size: IntArray, data_format: str) -> Tensor:
    """Max unpooling of NCHW x to ``output_size`` at the int32 positions ``indices``."""
    return unpool_compute(ctx, "unpool", x, indices, output_size.data)


@register_kernel("unpool3d", ("CPU", "GPU"), dtypes=FLOAT_DTYPES,
                 input_defs={"indices": _ANY_DTYPE})
def unpool3d(ctx, x: Tensor, indices: Tensor, ksize: list[int], strides: list[int],
             paddings: list[int], output_size: list[int], data_format: str) -> Tensor:
    """Max unpooling of NCDHW x to ``output_size`` at the int32 positions ``indices``."""
    return unpool_compute(ctx, "unpool3d", x, indices, output_size)
