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
from phi.infermeta.window import (
    fold_geometry,
    max_pool_with_index_geometry,
    maxout_axis,
    unfold_geometry,
)
from phi.kernels.conv import im2col
from phi.kernels.conv_transpose import col2im
from phi.kernels.funcs.windows import overhang

__all__ = [
    "fold",
    "max_pool2d_with_index",
    "max_pool3d_with_index",
    "maxout",
    "unfold",
    "unpool",
    "unpool3d",
]

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


@register_kernel("unfold", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def unfold(ctx, x: Tensor, kernel_sizes: list[int], strides: list[int], paddings: list[int],
           dilations: list[int]) -> Tensor:
    """im2col of NCHW x: [N, C * kh * kw, L] (paddings [top, left, bottom, right]); windows
    past the input read zero, as conv's."""
    xp = ctx.xp
    pads, blocks = unfold_geometry(x.shape[2:], kernel_sizes, strides, paddings, dilations)
    for i, size in enumerate(x.shape[2:]):  # grow the trailing side under partial windows
        pads[2 * i + 1] += overhang(size, pads[2 * i], pads[2 * i + 1], blocks[i], strides[i],
                                    dilations[i] * (kernel_sizes[i] - 1) + 1)
    if 0 in x.shape:
        k = kernel_sizes[0] * kernel_sizes[1]
        return xp.zeros((x.shape[0], x.shape[1] * k, blocks[0] * blocks[1]), dtype=x.dtype)
    return im2col(xp, x, kernel_sizes, strides, pads, dilations, blocks)


@register_kernel("fold", ("CPU", "GPU"), dtypes=["float32", "float64", "complex64",
                                                 "complex128"])
def fold(ctx, x: Tensor, output_sizes: list[int], kernel_sizes: list[int], strides: list[int],
         paddings: list[int], dilations: list[int]) -> Tensor:
    """col2im of [N, C * kh * kw, L] columns into [N, C, *output_sizes]: overlapping taps add
    up, in Paddle's order."""
    xp = ctx.xp
    pads, blocks = fold_geometry(x.shape, output_sizes, kernel_sizes, strides, paddings,
                                 dilations)
    n, k = x.shape[0], kernel_sizes[0] * kernel_sizes[1]
    cols = xp.reshape(x, (n, x.shape[1] // k, *kernel_sizes, *blocks))
    out = col2im(xp, cols, strides, dilations, pads[::2], output_sizes)
    return xp.asarray(out, copy=True)


@register_kernel("maxout", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def maxout(ctx, x: Tensor, groups: int, axis: int) -> Tensor:
    """Max over each run of ``groups`` consecutive channels (axis 1, or 3 / -1 for NHWC),
    MaxOutFunctor's way: from -FLT_MAX, ``ele > x ? ele : x`` (a NaN survives only as the
    group's last element)."""
    xp = ctx.xp
    axis = maxout_axis(x.shape, groups, axis)
    shape = list(x.shape)
    shape[axis:axis + 1] = [shape[axis] // groups, groups]
    parts = xp.reshape(x, shape)
    ele = xp.full(shape[:axis + 1] + shape[axis + 2:], -FLT_MAX, dtype=x.dtype)
    for g in range(groups):
        part = xp.take(parts, g, axis=axis + 1)
        ele = xp.where(ele > part, ele, part)
    return ele
