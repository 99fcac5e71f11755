"""The ``max_pool2d_with_index``, ``max_pool2d_with_index_grad``, ``max_pool3d_with_index``,
``max_pool3d_with_index_grad``, ``pool2d``, ``pool2d_grad``, ``pool3d`` and ``pool3d_grad``
kernels."""

from __future__ import annotations

import functools
import itertools

import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import (
    adaptive_bounds,
    is_channel_last,
    max_pool_with_index_geometry,
    pool_output_size,
    resolve_pool_padding,
)
from phi.kernels.funcs import jit, prod, quiet
from phi.kernels.funcs.windows import overhang, strided_view

__all__ = ["max_pool2d_with_index", "max_pool3d_with_index", "pool2d", "pool3d", "pool_adaptive",
           "pool_compute", "pool_fixed", "pool_grad_compute", "pool_window_grad"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
POOL2D_DTYPES = ["float32", "float64"]
POOL3D_DTYPES = ["float32", "float64"]

FLT_MAX = 3.4028234663852886e38
"""C's FLT_MAX: MaxPool's initial value, static_cast<T>(-FLT_MAX) for double too."""

_MAX_TAPS = 64
"""Windows up to this many elements are reduced tap by tap (see _reduce_windows)."""


def _window_view(xp, x, ksize, strides, out_sizes):
    """[N, C, *out, *k] strided view of the (padded) [N, C, *spatial] array x, whose padding
    holds every window (checked by ``strided_view``)."""
    x = xp.ascontiguousarray(x)
    sp = x.strides[2:]
    shape = (*x.shape[:2], *out_sizes, *ksize)
    st = (*x.strides[:2], *(s * t for s, t in zip(sp, strides, strict=True)), *sp)
    return strided_view(xp, x, shape, st)


def _reduce_windows(xp, x, ksize, strides, out_sizes, is_max: bool):
    """Max or sum over every window of the padded [N, C, *spatial] array x -> [N, C, *out].

    Small windows are reduced tap by tap: one elementwise max/add per window position over a
    strided slice, in the order Paddle's loop visits the window (row-major), so sums are
    accumulated as Paddle accumulates them.  Large windows (global pooling) are reduced over
    a window view instead, where the window axes are long and contiguous.
    """
    nd = len(ksize)
    axes = tuple(range(2, 2 + nd))
    if prod(ksize) > _MAX_TAPS:
        if all(o == 1 for o in out_sizes) and tuple(ksize) == x.shape[2:]:  # global: no view
            return xp.max(x, axis=axes) if is_max else xp.sum(x, axis=axes)
        view = _window_view(xp, x, ksize, strides, out_sizes)
        axes = tuple(range(2 + nd, 2 + 2 * nd))
        return xp.max(view, axis=axes) if is_max else xp.sum(view, axis=axes)
    combine = xp.maximum if is_max else xp.add
    # per axis, the slice of every tap (built once: the loop below runs prod(ksize) times)
    per_axis = [[slice(t, t + s * (o - 1) + 1, s) for t in range(k)] for k, s, o in
                zip(ksize, strides, out_sizes, strict=True)]
    whole = slice(None)
    taps = itertools.product(*per_axis)
    out = xp.array(x[(whole, whole, *next(taps))], copy=True)
    for where in taps:
        combine(out, x[(whole, whole, *where)], out=out)
    return out


@functools.lru_cache(maxsize=256)
def _divisor(spatial, ksize, strides, lead, out_sizes, exclusive: bool, dtype: str):
    """The average's divisor [*out] (see the module doc), read-only and cached per geometry:
    built from per-axis counts, it costs more than the pooling itself on small layers.  Also
    whether some window has no element (0 / 0 is NaN there, as in Paddle)."""
    count = None
    for i, size in enumerate(spatial):
        start = np.arange(out_sizes[i]) * strides[i] - lead[i]
        end = np.minimum(start + ksize[i], size + lead[i])
        c = np.minimum(end, size) - np.maximum(start, 0) if exclusive else end - start
        c = np.reshape(c, (-1,) + (1,) * (len(spatial) - 1 - i))
        count = c if count is None else count * c
    count = count.astype(dtype)
    count.flags.writeable = False
    return count, bool((count == 0).any())


def pool_fixed(ctx, x, ksize, strides, lead, out_sizes, pooling_type: str, exclusive: bool):
    """Max or average pooling of an [N, C, *spatial] x over windows ``ksize``, ``strides``
    apart, starting ``lead`` (the leading paddings) before the input: Paddle's Pool2d/3dFunctor
    (module doc).  Also spp's levels."""
    xp = ctx.xp
    spatial = x.shape[2:]
    # room for every window: the leading padding plus whatever the last window overhangs
    after = [overhang(size, p, 0, o, s, k) for size, p, o, s, k in
             zip(spatial, lead, out_sizes, strides, ksize, strict=True)]
    is_max = pooling_type == "max"
    if (is_max and len(ksize) == 2 and type(x) is np.ndarray
            and x.dtype in jit.DTYPES and prod(ksize) <= _MAX_TAPS):
        loops = jit.kernels()
        if loops is not None:  # the compiled loop: windows clipped to x, no padded copy
            out = np.empty((*x.shape[:2], *out_sizes), dtype=x.dtype)
            loops.max_pool2d(jit.contiguous(x), out, *ksize, *strides, *lead,
                             x.dtype.type(-FLT_MAX))
            return out
    if any(lead) or any(after):
        x = xp.pad(x, ((0, 0), (0, 0), *zip(lead, after, strict=True)),
                   constant_values=-xp.inf if is_max else 0)
    total = _reduce_windows(xp, x, ksize, strides, out_sizes, is_max)
    if is_max:
        return xp.maximum(total, xp.asarray(-FLT_MAX, dtype=total.dtype))
    count, empty = _divisor(tuple(spatial), tuple(ksize), tuple(strides), tuple(lead),
                            tuple(out_sizes), exclusive, str(total.dtype))
    if empty:
        with quiet(xp):  # an exclusive window of padding only divides 0 by 0, as in Paddle
            return xp.divide(total, xp.asarray(count), out=total)
    return xp.divide(total, xp.asarray(count), out=total)


def _adaptive_axis(xp, x, axis: int, n_out: int, is_max: bool):
    """x reduced along ``axis`` over the adaptive windows [floor(i*in/out), ceil((i+1)*in/out))
    -> (reduced, window lengths)."""
    size = x.shape[axis]
    bounds = [adaptive_bounds(i, size, n_out) for i in range(n_out)]  # n_out is small
    start = xp.asarray([b[0] for b in bounds])
    length = xp.asarray([b[1] - b[0] for b in bounds])
    offs = xp.arange(max(b[1] - b[0] for b in bounds))
    valid = offs[None, :] < length[:, None]
    idx = xp.minimum(start[:, None] + offs[None, :], size - 1)  # [n_out, kmax]
    g = xp.take(x, idx, axis=axis)  # the axis becomes [n_out, kmax]
    shape = [1] * g.ndim
    shape[axis], shape[axis + 1] = valid.shape
    valid = xp.reshape(valid, shape)
    if is_max:
        return xp.max(xp.where(valid, g, -xp.inf), axis=axis + 1), length
    return xp.sum(xp.where(valid, g, 0), axis=axis + 1), length


def pool_adaptive(ctx, x, out_sizes, pooling_type: str):
    """Adaptive max / average pooling of an [N, C, *spatial] x to ``out_sizes``: windows are
    boxes, so they are reduced one axis at a time; the divisor is the box's size."""
    xp = ctx.xp
    spatial = x.shape[2:]
    is_max = pooling_type == "max"
    if all(size % o == 0 for size, o in zip(spatial, out_sizes, strict=True)):
        # equal, disjoint windows: a reshape
        shape = [*x.shape[:2]]
        for size, o in zip(spatial, out_sizes, strict=True):
            shape += [o, size // o]
        axes = tuple(range(3, 3 + 2 * len(spatial), 2))
        blocks = xp.reshape(x, shape)
        if is_max:
            out = xp.max(blocks, axis=axes)
            return xp.maximum(out, xp.asarray(-FLT_MAX, dtype=out.dtype))
        total = xp.sum(blocks, axis=axes)
        return total / xp.asarray(prod(spatial) // prod(out_sizes), dtype=total.dtype)
    out, count = x, None
    for i, o in enumerate(out_sizes):
        out, length = _adaptive_axis(xp, out, 2 + i, o, is_max)
        length = xp.reshape(length, (-1,) + (1,) * (len(spatial) - 1 - i))
        count = length if count is None else count * length
    if is_max:
        return xp.maximum(out, xp.asarray(-FLT_MAX, dtype=out.dtype))
    return out / count.astype(out.dtype)


def pool_compute(ctx, x, kernel_size, strides, paddings, ceil_mode: bool, exclusive: bool,
                 data_format: str, pooling_type: str, global_pooling: bool, adaptive: bool,
                 padding_algorithm: str):
    """Shared body of pool2d and pool3d."""
    xp = ctx.xp
    nd = x.ndim - 2
    channel_last = is_channel_last(data_format)
    xc = xp.permute_dims(x, (0, nd + 1, *range(1, nd + 1))) if channel_last else x
    data_dims = xc.shape[2:]
    ksize = [int(k) for k in kernel_size]
    pads = resolve_pool_padding(paddings, global_pooling, adaptive, padding_algorithm,
                                data_dims, strides, ksize)
    if global_pooling:
        ksize = list(data_dims)
    if adaptive:
        out = pool_adaptive(ctx, xc, tuple(ksize), pooling_type)
    else:
        out_sizes = tuple(pool_output_size(data_dims[i], ksize[i], pads[2 * i],
                                           pads[2 * i + 1], strides[i], ceil_mode)
                          for i in range(nd))
        out = pool_fixed(ctx, xc, ksize, strides, pads[::2], out_sizes, pooling_type,
                         exclusive)
    if channel_last:
        out = xp.permute_dims(out, (0, *range(2, nd + 2), 1))
    return xp.ascontiguousarray(out)


@register_kernel("pool2d", ("CPU", "GPU"), dtypes=POOL2D_DTYPES)
def pool2d(ctx, x: Tensor, kernel_size: IntArray, strides: list[int], paddings: list[int],
           ceil_mode: bool, exclusive: bool, data_format: str, pooling_type: str,
           global_pooling: bool, adaptive: bool, padding_algorithm: str) -> Tensor:
    """Max or average pooling over the H and W axes of an NCHW/NHWC input."""
    return pool_compute(ctx, x, kernel_size.data, strides, paddings, ceil_mode, exclusive,
                        data_format, pooling_type, global_pooling, adaptive, padding_algorithm)


@register_kernel("pool3d", ("CPU", "GPU"), dtypes=POOL3D_DTYPES)
def pool3d(ctx, x: Tensor, kernel_size: list[int], strides: list[int], paddings: list[int],
           ceil_mode: bool, exclusive: bool, data_format: str, pooling_type: str,
           global_pooling: bool, adaptive: bool, padding_algorithm: str) -> Tensor:
    """Max or average pooling over the D, H and W axes of an NCDHW/NDHWC input."""
    return pool_compute(ctx, x, kernel_size, strides, paddings, ceil_mode, exclusive,
                        data_format, pooling_type, global_pooling, adaptive, padding_algorithm)


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
FLOAT_DTYPES = ["float32", "float64"]


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


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json): float and double for all four
POOL_GRAD_DTYPES = ["float32", "float64"]


def _tap_slices(ksize, strides, out_sizes):
    """Per filter tap (row-major, the order Paddle visits a window), the strided slices of the
    padded buffer that hold that tap of every window."""
    per_axis = [[slice(t, t + s * (o - 1) + 1, s) for t in range(k)] for k, s, o in
                zip(ksize, strides, out_sizes, strict=True)]
    return itertools.product(*per_axis)


def _fixed_grad(xp, x, out, dout, ksize, strides, lead, is_max: bool, scale=None):
    """Input gradient [N, C, *spatial] of fixed windows: per tap, dout (max: where the tap is
    the window's first element equal to ``out``; avg: times ``scale`` [*out]) added into a
    buffer padded by ``lead`` and every window's overhang, then cropped."""
    spatial = x.shape[2:]
    out_sizes = dout.shape[2:]
    after = [overhang(size, p, 0, o, s, k) for size, p, o, s, k in
             zip(spatial, lead, out_sizes, strides, ksize, strict=True)]
    pad = ((0, 0), (0, 0), *zip(lead, after, strict=True))
    buf = xp.zeros(tuple(a + b + n for (a, b), n in zip(pad, x.shape, strict=True)),
                   dtype=dout.dtype)
    whole = (slice(None), slice(None))
    if is_max:
        xpad = xp.pad(x, pad, constant_values=xp.nan)  # padding never equals the output
        found = xp.zeros(dout.shape, dtype=bool)
        for where in _tap_slices(ksize, strides, out_sizes):
            hit = (xpad[(*whole, *where)] == out) & ~found
            found |= hit
            buf[(*whole, *where)] += xp.where(hit, dout, dout.dtype.type(0))
    else:
        contrib = dout * scale
        for where in _tap_slices(ksize, strides, out_sizes):
            buf[(*whole, *where)] += contrib
    return buf[(*whole, *(slice(p, p + n) for p, n in zip(lead, spatial, strict=True)))]


def _float_scale(xp, count, dtype):
    """1.0f / pool_size in float, cast to the kernel's type (Paddle's ``scale``)."""
    with quiet(xp):  # a window of padding only has pool_size 0 and adds nothing
        return (np.float32(1) / np.asarray(count, dtype=np.float32)).astype(dtype)


def _adaptive_avg_grad(xp, x, dout):
    """Input gradient of adaptive average pooling: dout * 1/box size, summed over the boxes
    holding each element (one membership matrix per axis)."""
    spatial = x.shape[2:]
    out_sizes = dout.shape[2:]
    mats, count = [], None
    for i, (size, n_out) in enumerate(zip(spatial, out_sizes, strict=True)):
        bounds = [adaptive_bounds(j, size, n_out) for j in range(n_out)]
        pos = np.arange(size)
        mats.append(np.stack([(pos >= b) & (pos < e) for b, e in bounds]).astype(x.dtype))
        length = np.array([e - b for b, e in bounds]).reshape((-1,) + (1,) * (len(spatial) - 1
                                                                               - i))
        count = length if count is None else count * length
    g = dout * xp.asarray(_float_scale(xp, count, dout.dtype))
    for i, m in enumerate(mats):
        g = xp.moveaxis(xp.tensordot(g, xp.asarray(m), axes=([2 + i], [0])), -1, 2 + i)
    return g


def pool_window_grad(xp, x, out, dout, ksize, strides, lead, pooling_type: str,
                     exclusive: bool):
    """Input gradient [N, C, *spatial] of max / average pooling over fixed windows (channels
    first; ``lead`` the leading paddings): pool2d/3d_grad's and spp_grad's."""
    if pooling_type == "max":
        return _fixed_grad(xp, x, out, dout, ksize, strides, lead, True)
    count, _ = _divisor(tuple(x.shape[2:]), tuple(ksize), tuple(strides), tuple(lead),
                        tuple(dout.shape[2:]), exclusive, "int64")
    scale = xp.asarray(_float_scale(xp, count, dout.dtype))
    return _fixed_grad(xp, x, out, dout, ksize, strides, lead, False, scale)


def pool_grad_compute(ctx, x, out, out_grad, kernel_size, strides, paddings, exclusive: bool,
                      data_format: str, pooling_type: str, global_pooling: bool,
                      adaptive: bool, padding_algorithm: str):
    """Shared body of pool2d_grad and pool3d_grad."""
    xp = ctx.xp
    nd = x.ndim - 2
    cl = is_channel_last(data_format)

    def first(a):
        return xp.permute_dims(a, (0, nd + 1, *range(1, nd + 1))) if cl else a

    xc, outc, dout = first(x), first(out), first(out_grad)
    if x.size == 0 or dout.size == 0:
        return xp.zeros_like(x)
    data_dims = xc.shape[2:]
    ksize = [int(k) for k in kernel_size]
    pads = resolve_pool_padding(paddings, global_pooling, adaptive, padding_algorithm,
                                data_dims, strides, ksize)
    if global_pooling:
        ksize = list(data_dims)
    if pooling_type != "max" and adaptive:
        dx = _adaptive_avg_grad(xp, xc, dout)
    else:
        dx = pool_window_grad(xp, xc, outc, dout, ksize, strides, pads[::2], pooling_type,
                              exclusive)
    if cl:
        dx = xp.permute_dims(dx, (0, *range(2, nd + 2), 1))
    return xp.ascontiguousarray(dx, dtype=x.dtype)


@register_kernel("pool2d_grad", ("CPU", "GPU"), dtypes=POOL_GRAD_DTYPES)
def pool2d_grad(ctx, x: Tensor, out: Tensor, out_grad: Tensor, kernel_size: IntArray,
                strides: list[int], paddings: list[int], ceil_mode: bool, exclusive: bool,
                data_format: str, pooling_type: str, global_pooling: bool, adaptive: bool,
                padding_algorithm: str) -> Tensor:
    """Input gradient of pool2d (max: first maximum of each window; avg: dout / pool_size)."""
    return pool_grad_compute(ctx, x, out, out_grad, kernel_size.data, strides, paddings,
                             exclusive, data_format, pooling_type, global_pooling, adaptive,
                             padding_algorithm)


@register_kernel("pool3d_grad", ("CPU", "GPU"), dtypes=POOL_GRAD_DTYPES)
def pool3d_grad(ctx, x: Tensor, out: Tensor, out_grad: Tensor, kernel_size: list[int],
                strides: list[int], paddings: list[int], ceil_mode: bool, exclusive: bool,
                data_format: str, pooling_type: str, global_pooling: bool, adaptive: bool,
                padding_algorithm: str) -> Tensor:
    """Input gradient of pool3d (as pool2d_grad, one more axis)."""
    return pool_grad_compute(ctx, x, out, out_grad, kernel_size, strides, paddings, exclusive,
                             data_format, pooling_type, global_pooling, adaptive,
                             padding_algorithm)


_MASK_INT32 = {"mask": {"dtype": DataType.INT32}}
"""Paddle registers the Mask argument as int (InputAt(1).SetDataType)."""


def _with_index_grad(ctx, x, mask, out_grad):
    """dout added at the flat in-plane positions its Mask holds (MaxPool*WithIndexGradFunctor);
    a negative index (a window with no element) adds nothing."""
    xp = ctx.xp
    n, c = x.shape[:2]
    dx = xp.zeros((n * c, int(np.prod(x.shape[2:]))), dtype=out_grad.dtype)
    if dx.size and out_grad.size:
        idx = xp.reshape(mask, (n * c, -1)).astype(np.int64)
        g = xp.reshape(out_grad, (n * c, -1))
        rows = xp.broadcast_to(xp.arange(n * c)[:, None], idx.shape)
        ok = idx >= 0
        xp.add.at(dx, (rows[ok], idx[ok]), g[ok])
    return xp.reshape(dx, x.shape)


@register_kernel("max_pool2d_with_index_grad", ("CPU", "GPU"), dtypes=POOL_GRAD_DTYPES,
                 input_defs=_MASK_INT32)
def max_pool2d_with_index_grad(ctx, x: Tensor, mask: Tensor, out_grad: Tensor,
                               kernel_size: list[int], strides: list[int], paddings: list[int],
                               global_pooling: bool, adaptive: bool) -> Tensor:
    """Input gradient of max_pool2d_with_index: each output's gradient at its Mask position."""
    return _with_index_grad(ctx, x, mask, out_grad)


@register_kernel("max_pool3d_with_index_grad", ("CPU", "GPU"), dtypes=POOL_GRAD_DTYPES,
                 input_defs=_MASK_INT32)
def max_pool3d_with_index_grad(ctx, x: Tensor, mask: Tensor, out_grad: Tensor,
                               kernel_size: list[int], strides: list[int], paddings: list[int],
                               global_pooling: bool, adaptive: bool) -> Tensor:
    """Input gradient of max_pool3d_with_index: each output's gradient at its Mask position."""
    return _with_index_grad(ctx, x, mask, out_grad)
