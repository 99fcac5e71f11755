"""Helpers shared by the convolution kernels (conv, conv_transpose, fold, unfold): padding,
strided window views, im2col / col2im and the channel-last <-> channel-first views."""

from __future__ import annotations

import itertools


from phi.kernels.funcs import prod
from phi.kernels.funcs.windows import strided_view

__all__ = ["channels_first", "channels_last", "col2im", "conv_windows", "im2col", "pad_nchw"]


def pad_nchw(xp, x, pads):
    """x [N, C, *spatial] zero-padded by pads [before0, after0, before1, ...]: a new C-contiguous
    array (zeros, then one slice assignment: a tenth of ``xp.pad``'s time on small layers)."""
    if not any(pads):
        return xp.ascontiguousarray(x)
    spatial = x.shape[2:]
    shape = [size + pads[2 * i] + pads[2 * i + 1] for i, size in enumerate(spatial)]
    out = xp.zeros((*x.shape[:2], *shape), dtype=x.dtype)
    out[(..., *[slice(pads[2 * i], pads[2 * i] + size) for i, size in enumerate(spatial)])] = x
    return out


def conv_windows(xp, x, groups: int, ksize, dilations, strides, out_sizes):
    """A strided view [N, G, C/G, *k, *out] of the padded, contiguous [N, C, *spatial] input x
    (no copy); the padding must hold every window (``windows.overhang`` is 0)."""
    n, c = x.shape[:2]
    sn, sc = x.strides[:2]
    sp = x.strides[2:]
    cg = c // groups
    shape = (n, groups, cg, *ksize, *out_sizes)
    st = [sn, sc * cg, sc]
    st += [s * d for s, d in zip(sp, dilations, strict=False)]
    st += [s * t for s, t in zip(sp, strides, strict=False)]
    return strided_view(xp, x, shape, st)


def im2col(xp, x, ksize, strides, pads, dilations, out_sizes):
    """Paddle's im2col (kCFO) of an [N, C, *spatial] x: columns [N, C * prod(k), prod(out)],
    taps outside the input zero; ``pads`` [before0, after0, ...] must hold every window."""
    n, c = x.shape[:2]
    view = conv_windows(xp, pad_nchw(xp, x, pads), 1, ksize, dilations, strides, out_sizes)
    return xp.reshape(view, (n, c * prod(ksize), prod(out_sizes)))  # the copy


def col2im(xp, cols, strides, dilations, pads_before, out_sizes):
    """Paddle's col2im / col2vol: columns [N, C, *k, *blocks] added into [N, C, *out], tap
    (t...) of block (b...) at b * stride - pad + t * dilation, dropped when outside [0, out).
    One strided add per tap, taps in row-major order (the order Paddle adds them), into a
    buffer that holds every tap and the output, then cropped by the leading paddings."""
    n, c = cols.shape[:2]
    nd = len(out_sizes)
    ksize, blocks = cols.shape[2:2 + nd], cols.shape[2 + nd:]
    full = [max((b - 1) * s + d * (k - 1) + 1, p + o) for b, s, d, k, p, o in
            zip(blocks, strides, dilations, ksize, pads_before, out_sizes, strict=True)]
    buf = xp.zeros((n, c, *full), dtype=cols.dtype)
    for tap in itertools.product(*(range(k) for k in ksize)):
        where = tuple(slice(t * d, t * d + (b - 1) * s + 1, s) for t, d, b, s in
                      zip(tap, dilations, blocks, strides, strict=True))
        buf[(slice(None), slice(None), *where)] += cols[(slice(None), slice(None), *tap)]
    return buf[(slice(None), slice(None),
                *(slice(p, p + o) for p, o in zip(pads_before, out_sizes, strict=True)))]


def channels_first(xp, a, nd: int, channel_last: bool):
    """An [N, *spatial, C] array as [N, C, *spatial] (a view), or a as it is."""
    return xp.permute_dims(a, (0, nd + 1, *range(1, nd + 1))) if channel_last else a


def channels_last(xp, a, nd: int, channel_last: bool):
    """The inverse of ``_first``, made contiguous."""
    if channel_last:
        a = xp.permute_dims(a, (0, *range(2, nd + 2), 1))
    return xp.ascontiguousarray(a)
