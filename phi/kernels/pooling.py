"""Pooling: pool2d and pool3d, max and avg (Paddle's paddle/phi/kernels/impl/pool_kernel_impl.h
and funcs/pooling.cc, Pool2dFunctor / Pool3dFunctor on CPU).

What Paddle's CPU functor computes, and this module reproduces:

* After SAME/VALID resolution the kernel keeps only the *leading* paddings (top, left); the
  output size comes from InferMeta, which counts both sides.  Window (ph, pw) covers rows
  [ph*sh - top, ph*sh - top + kh) clipped to the input.
* max: the largest element, starting from -FLT_MAX (a window of -inf only, or of padding only,
  gives -FLT_MAX).  NaN propagates here; Paddle's ``y > x ? y : x`` keeps a NaN only when it is
  the window's last element (order-dependent; not reproduced).
* avg: sum / count; ``exclusive`` counts the elements inside the input; otherwise the count is
  (min(start + k, size + top) - start) per axis, i.e. padding counts but an overhang past the
  (leading) padding does not.
* adaptive: window i covers [floor(i*in/out), ceil((i+1)*in/out)), averaged over its size.
* global: the window is the whole plane (paddings ignored).

Windows are reduced over strided slices of the padded input (a loop over the window's taps at
most, never over pixels or channels); adaptive windows, whose sizes vary, are boxes: gathered
with index arrays and masked one axis at a time.  NHWC / NDHWC is computed on a channel-first
view.  pool3d is the same computation with one more axis.

With numba (module ``jit``, ``FLAGS_kernel_numba``) 2-D max pooling over small windows is one
compiled loop (``_jit_loops.max_pool2d``: each window clipped to the input, from -FLT_MAX, a
NaN propagating as numpy's maximum propagates it): the same values, without the padded copy
and one pass per tap.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.nn import (
    adaptive_bounds,
    is_channel_last,
    pool_output_size,
    resolve_pool_padding,
)
from phi.kernels.funcs import jit
from phi.kernels.funcs import prod, quiet
from phi.kernels.funcs.windows import overhang, strided_view

__all__ = ["pool2d", "pool3d", "pool_adaptive", "pool_compute", "pool_fixed"]

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
