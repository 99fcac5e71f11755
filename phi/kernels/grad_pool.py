"""Gradients of pooling: pool2d_grad, pool3d_grad (Paddle's paddle/phi/kernels/impl/
pool_grad_kernel_impl.h, funcs/pooling.cc) and max_pool2d/3d_with_index_grad.

What Paddle's CPU grad functors compute, and this module reproduces:

* The geometry is the forward's (pooling module): leading paddings only, SAME/VALID resolved,
  global pooling takes the whole plane, adaptive pads nothing.
* max: each output's gradient goes to the FIRST element of its window (row-major) that equals
  the forward output (MaxPool2d/3dGradFunctor stops there); a window with no such element (a
  NaN, or padding only) passes nothing.  The window is [o*s - pad, o*s - pad + k) clipped to
  the input; this functor has no adaptive case, so an adaptive max pool's gradient uses the
  fixed windows of ksize (the output size) and strides, as Paddle does.
* avg: every element of a window gets dout * scale, scale = 1.0f / pool_size computed in
  float and cast to T (so float64 gradients carry a float-rounded scale, as in Paddle);
  pool_size is the forward's divisor (exclusive: the elements inside the input; otherwise up to
  the leading padding's mirror past the input; adaptive: the window's size).
* with_index: each output's gradient is added at the input position its Mask holds.

Fixed windows are scattered tap by tap into a padded buffer (strided slices, one add per tap
in the window's order), then cropped; adaptive average windows, which are boxes, are summed
with one 0/1 membership matrix per axis.
"""

from __future__ import annotations

import itertools

import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.nn import adaptive_bounds, is_channel_last, resolve_pool_padding
from phi.kernels.funcs import quiet
from phi.kernels.pooling import _divisor
from phi.kernels.funcs.windows import overhang

__all__ = ["pool_grad_compute", "pool_window_grad"]

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
