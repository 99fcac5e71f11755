"""2-D pooling: pool2d, max and avg (Paddle's paddle/phi/kernels/impl/pool_kernel_impl.h and
funcs/pooling.cc, Pool2dFunctor on CPU).

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

Windows are reduced over strided views of the padded input (a loop over the kh*kw window
positions at most, never over pixels or channels); adaptive windows, whose sizes vary, are
gathered with index arrays and masked.  NHWC is computed on an NCHW view.
"""

from __future__ import annotations

from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.nn import (
    adaptive_bounds,
    is_channel_last,
    pool_output_size,
    resolve_pool_padding,
)
from phi.kernels.funcs import quiet
from phi.kernels.windows import strided_view

__all__ = ["pool2d"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
POOL2D_DTYPES = ["float32", "float64"]

FLT_MAX = 3.4028234663852886e38
"""C's FLT_MAX: MaxPool's initial value, static_cast<T>(-FLT_MAX) for double too."""

_MAX_TAPS = 64
"""Windows up to this many elements are reduced tap by tap (see _reduce_windows)."""


def _window_view(xp, x, ksize, strides, out_hw):
    """[N, C, Ho, Wo, kh, kw] strided view of the (padded) NCHW array x, whose padding holds
    every window (checked by ``strided_view``)."""
    x = xp.ascontiguousarray(x)
    sn, sc, sh, sw = x.strides
    shape = x.shape[:2] + tuple(out_hw) + tuple(ksize)
    st = (sn, sc, sh * strides[0], sw * strides[1], sh, sw)
    return strided_view(xp, x, shape, st)


def _reduce_windows(xp, x, ksize, strides, out_hw, is_max: bool):
    """Max or sum over every window of the padded NCHW array x -> [N, C, Ho, Wo].

    Small windows are reduced tap by tap: one elementwise max/add per window position over a
    strided view, in the order Paddle's loop visits the window (row-major), so sums are
    accumulated as Paddle accumulates them.  Large windows (global pooling) are reduced over
    a window view instead, where the window axes are long and contiguous.
    """
    kh, kw = ksize
    if kh * kw > _MAX_TAPS:
        if tuple(out_hw) == (1, 1) and tuple(ksize) == x.shape[2:]:  # global: no view needed
            return xp.max(x, axis=(2, 3)) if is_max else xp.sum(x, axis=(2, 3))
        view = _window_view(xp, x, ksize, strides, out_hw)
        return xp.max(view, axis=(4, 5)) if is_max else xp.sum(view, axis=(4, 5))
    ho, wo = out_hw
    sh, sw = strides
    combine = xp.maximum if is_max else xp.add
    out = None
    for i in range(kh):
        for j in range(kw):
            tap = x[:, :, i:i + sh * (ho - 1) + 1:sh, j:j + sw * (wo - 1) + 1:sw]
            if out is None:
                out = xp.array(tap, copy=True)
            else:
                combine(out, tap, out=out)
    return out


def _counts(xp, size: int, ksize: int, stride: int, lead: int, n_out: int, exclusive: bool):
    """Per-output divisor along one axis (see the module doc)."""
    start = xp.arange(n_out) * stride - lead
    end = xp.minimum(start + ksize, size + lead)
    if exclusive:
        return xp.minimum(end, size) - xp.maximum(start, 0)
    return end - start


def _pool_fixed(ctx, x, ksize, strides, lead, out_hw, pooling_type: str, exclusive: bool):
    xp = ctx.xp
    h, w = x.shape[2:]
    ho, wo = out_hw
    top, left = lead
    # room for every window: the leading padding plus whatever the last window overhangs
    bottom = max(0, (ho - 1) * strides[0] + ksize[0] - top - h)
    right = max(0, (wo - 1) * strides[1] + ksize[1] - left - w)
    is_max = pooling_type == "max"
    fill = -xp.inf if is_max else 0
    if top or bottom or left or right:
        x = xp.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=fill)
    total = _reduce_windows(xp, x, ksize, strides, out_hw, is_max)
    if is_max:
        return xp.maximum(total, xp.asarray(-FLT_MAX, dtype=total.dtype))
    ch = _counts(xp, h, ksize[0], strides[0], top, ho, exclusive)
    cw = _counts(xp, w, ksize[1], strides[1], left, wo, exclusive)
    count = (ch[:, None] * cw[None, :]).astype(total.dtype)
    with quiet(xp):  # an exclusive window of padding only divides 0 by 0, as in Paddle
        return total / count


def _adaptive_index(xp, size: int, n_out: int):
    """(indices [n_out, kmax] clipped into the input, valid mask, window sizes)."""
    bounds = [adaptive_bounds(i, size, n_out) for i in range(n_out)]  # n_out is small
    start = xp.asarray([b[0] for b in bounds])
    length = xp.asarray([b[1] - b[0] for b in bounds])
    kmax = max(b[1] - b[0] for b in bounds)
    offs = xp.arange(kmax)
    valid = offs[None, :] < length[:, None]
    idx = xp.minimum(start[:, None] + offs[None, :], size - 1)
    return idx, valid, length


def _pool_adaptive(ctx, x, out_hw, pooling_type: str):
    xp = ctx.xp
    n, c, h, w = x.shape
    ho, wo = out_hw
    if h % ho == 0 and w % wo == 0:  # equal, disjoint windows: a reshape
        blocks = xp.reshape(x, (n, c, ho, h // ho, wo, w // wo))
        if pooling_type == "max":
            out = xp.max(blocks, axis=(3, 5))
            return xp.maximum(out, xp.asarray(-FLT_MAX, dtype=out.dtype))
        total = xp.sum(blocks, axis=(3, 5))
        return total / xp.asarray((h // ho) * (w // wo), dtype=total.dtype)
    ih, vh, lh = _adaptive_index(xp, h, ho)
    iw, vw, lw = _adaptive_index(xp, w, wo)
    g = x[:, :, ih[:, :, None, None], iw[None, None, :, :]]  # [N, C, Ho, kh, Wo, kw]
    valid = vh[:, :, None, None] & vw[None, None, :, :]
    if pooling_type == "max":
        out = xp.max(xp.where(valid, g, -xp.inf), axis=(3, 5))
        return xp.maximum(out, xp.asarray(-FLT_MAX, dtype=out.dtype))
    total = xp.sum(xp.where(valid, g, 0), axis=(3, 5))
    return total / (lh[:, None] * lw[None, :]).astype(total.dtype)


@register_kernel("pool2d", ("CPU", "GPU"), dtypes=POOL2D_DTYPES)
def pool2d(ctx, x: Tensor, kernel_size: IntArray, strides: list[int], paddings: list[int],
           ceil_mode: bool, exclusive: bool, data_format: str, pooling_type: str,
           global_pooling: bool, adaptive: bool, padding_algorithm: str) -> Tensor:
    """Max or average pooling over the H and W axes of an NCHW/NHWC input."""
    xp = ctx.xp
    channel_last = is_channel_last(data_format)
    xc = xp.permute_dims(x, (0, 3, 1, 2)) if channel_last else x
    data_dims = xc.shape[2:]
    ksize = [int(k) for k in kernel_size.data]
    pads = resolve_pool_padding(paddings, global_pooling, adaptive, padding_algorithm,
                                data_dims, strides, ksize)
    if global_pooling:
        ksize = list(data_dims)
    if adaptive:
        out = _pool_adaptive(ctx, xc, tuple(ksize), pooling_type)
    else:
        out_hw = tuple(pool_output_size(data_dims[i], ksize[i], pads[2 * i], pads[2 * i + 1],
                                        strides[i], ceil_mode) for i in range(2))
        out = _pool_fixed(ctx, xc, ksize, strides, (pads[0], pads[2]), out_hw, pooling_type,
                          exclusive)
    if channel_last:
        out = xp.permute_dims(out, (0, 2, 3, 1))
    return xp.ascontiguousarray(out)
