"""Gradients of the RoI ops: roi_align_grad, roi_pool_grad, psroi_pool_grad (Paddle's
paddle/phi/kernels/cpu/{roi_align,roi_pool,psroi_pool}_grad_kernel.cc): each output bin's
gradient goes back to the input pixels the forward (phi/kernels/roi.py) read, with the
forward's weights: the bilinear samples' weights / the sample count, the argmax pixel, or
1 / the bin's area."""

from __future__ import annotations

import math

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.roi import psroi_bins, roi_batch_ids

__all__: list[str] = []

_F = ["float32", "float64"]
_ANY = {"dtype": DataType.ALL_DTYPE}


def _bilinear_taps(y, x, height: int, width: int, t):
    """bilinear_interpolate_gradient: the four (row, column, weight) taps of a sample, none
    when the sample lies more than one pixel outside the image."""
    if y < -1.0 or y > height or x < -1.0 or x > width:
        return []
    y, x = max(y, t(0)), max(x, t(0))
    y_low, x_low = int(y), int(x)
    if y_low >= height - 1:
        y_low = y_high = height - 1
        y = t(y_low)
    else:
        y_high = y_low + 1
    if x_low >= width - 1:
        x_low = x_high = width - 1
        x = t(x_low)
    else:
        x_high = x_low + 1
    ly, lx = y - t(y_low), x - t(x_low)
    hy, hx = t(1) - ly, t(1) - lx
    return [(y_low, x_low, hy * hx), (y_low, x_high, hy * lx), (y_high, x_low, ly * hx),
            (y_high, x_high, ly * lx)]


@register_kernel("roi_align_grad", "CPU", dtypes=[*_F, "int32"], input_defs={"boxes_num": _ANY})
def roi_align_grad(ctx, x: Tensor, boxes: LoDTensor, boxes_num: Tensor | None,
                   out_grad: Tensor, pooled_height: int, pooled_width: int,
                   spatial_scale: float, sampling_ratio: int, aligned: bool) -> Tensor:
    """Each bin's gradient / its sample count, spread over each sample's bilinear taps; RoI
    sizes below 1 are raised to 1 whether ``aligned`` or not (Paddle's grad kernel)."""
    t = x.dtype.type if x.dtype.kind == "f" else np.float32
    n_img, _, height, width = x.shape
    dx = np.zeros(x.shape, t)
    ids = roi_batch_ids("roi_align_grad", boxes, boxes_num, n_img)
    ss = t(np.float32(spatial_scale))
    off = t(0.5) if aligned else t(0)
    for r, roi in enumerate(boxes.data.astype(t)):
        x1, y1, x2, y2 = roi * ss - off
        # the grad kernel keeps sizes >= 1 even when aligned (unlike the forward: Paddle's
        # roi_align_lod_aligned_ratio2 grad case)
        rw, rh = max(x2 - x1, t(1)), max(y2 - y1, t(1))
        bh, bw = rh / t(pooled_height), rw / t(pooled_width)
        gh = sampling_ratio if sampling_ratio > 0 else math.ceil(rh / pooled_height)
        gw = sampling_ratio if sampling_ratio > 0 else math.ceil(rw / pooled_width)
        count = t(max(gh * gw, 1))
        img = dx[ids[r]]
        for ph in range(pooled_height):
            for pw in range(pooled_width):
                g = out_grad[r, :, ph, pw].astype(t)
                for iy in range(gh):
                    y = y1 + t(ph) * bh + (t(iy) + t(0.5)) * bh / t(gh)
                    for ix in range(gw):
                        xx = x1 + t(pw) * bw + (t(ix) + t(0.5)) * bw / t(gw)
                        for row, col, w in _bilinear_taps(y, xx, height, width, t):
                            img[:, row, col] += g * w / count
    return dx.astype(x.dtype)


@register_kernel("roi_pool_grad", "CPU", dtypes=[*_F, "int32"],
                 input_defs={"boxes_num": _ANY, "arg_max": {"dtype": DataType.INT64}})
def roi_pool_grad(ctx, x: Tensor, boxes: LoDTensor, boxes_num: Tensor | None,
                  arg_max: Tensor, out_grad: Tensor, pooled_height: int, pooled_width: int,
                  spatial_scale: float) -> Tensor:
    """Each bin's gradient added at its Argmax pixel (nothing for an empty bin, -1)."""
    n_img, channels, height, width = x.shape
    ids = roi_batch_ids("roi_pool_grad", boxes, boxes_num, n_img)
    dx = np.zeros((n_img, channels, height * width), x.dtype)
    num = boxes.data.shape[0]
    if num and out_grad.size:
        arg = np.reshape(arg_max, (num, channels, -1))
        g = np.reshape(out_grad, (num, channels, -1))
        img = np.broadcast_to(ids[:, None, None], arg.shape)
        chan = np.broadcast_to(np.arange(channels)[None, :, None], arg.shape)
        ok = arg >= 0
        np.add.at(dx, (img[ok], chan[ok], arg[ok]), g[ok])
    return dx.reshape(x.shape)


@register_kernel("psroi_pool_grad", "CPU", dtypes=_F, input_defs={"boxes_num": _ANY})
def psroi_pool_grad(ctx, x: Tensor, boxes: LoDTensor, boxes_num: Tensor | None,
                    out_grad: Tensor, pooled_height: int, pooled_width: int,
                    output_channels: int, spatial_scale: float) -> Tensor:
    """Each bin's gradient / the bin's area added over the bin of its position-sensitive
    input channel."""
    n_img, _, height, width = x.shape
    ids = roi_batch_ids("psroi_pool_grad", boxes, boxes_num, n_img)
    t = x.dtype.type
    ss = t(np.float32(spatial_scale))
    dx = np.zeros(x.shape, x.dtype)
    for r, c, ph, pw, ch, hs, he, ws, we, area in psroi_bins(
            boxes.data, t, ss, height, width, pooled_height, pooled_width, output_channels):
        dx[ids[r], ch, hs:he, ws:we] += out_grad[r, c, ph, pw] / area
    return dx
