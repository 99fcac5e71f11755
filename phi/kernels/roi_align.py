"""The ``roi_align`` and ``roi_align_grad`` kernels."""

from __future__ import annotations

import math

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.detection import check_rois, roi_batch_ids

__all__ = ["roi_align"]


_F = ["float32", "float64"]
_ANY = {"dtype": DataType.ALL_DTYPE}


@register_kernel("roi_align", "CPU", dtypes=[*_F, "int32"], input_defs={"boxes_num": _ANY})
def roi_align(ctx, x: Tensor, boxes: LoDTensor, boxes_num: Tensor | None, pooled_height: int,
              pooled_width: int, spatial_scale: float, sampling_ratio: int, aligned: bool
              ) -> Tensor:
    """Average of bilinear samples per bin (sampling_ratio per side, else ceil(bin size));
    aligned shifts the RoI by half a pixel and keeps sizes below 1."""
    check_rois("roi_align", x, boxes)
    t = x.dtype.type if x.dtype.kind == "f" else np.float32
    n_img, channels, height, width = x.shape
    ids = roi_batch_ids("roi_align", boxes, boxes_num, n_img)
    ss = t(np.float32(spatial_scale))
    off = t(0.5) if aligned else t(0)
    out = np.zeros((boxes.data.shape[0], channels, pooled_height, pooled_width), x.dtype)
    for r, roi in enumerate(boxes.data.astype(t)):
        x1, y1, x2, y2 = roi * ss - off
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, t(1)), max(rh, t(1))
        bh, bw = rh / t(pooled_height), rw / t(pooled_width)
        gh = sampling_ratio if sampling_ratio > 0 else math.ceil(rh / pooled_height)
        gw = sampling_ratio if sampling_ratio > 0 else math.ceil(rw / pooled_width)
        count = t(max(gh * gw, 1))
        img = x[ids[r]].astype(t)
        for ph in range(pooled_height):
            for pw in range(pooled_width):
                acc = np.zeros(channels, t)
                for iy in range(gh):
                    y = y1 + t(ph) * bh + (t(iy) + t(0.5)) * bh / t(gh)
                    for ix in range(gw):
                        xx = x1 + t(pw) * bw + (t(ix) + t(0.5)) * bw / t(gw)
                        acc += _bilinear(img, y, xx, height, width, t)
                out[r, :, ph, pw] = acc / count
    return out


def _bilinear(img, y, x, height, width, t):
    if y < -1.0 or y > height or x < -1.0 or x > width:
        return np.zeros(img.shape[0], t)
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
    return (hy * hx * img[:, y_low, x_low] + hy * lx * img[:, y_low, x_high]
            + ly * hx * img[:, y_high, x_low] + ly * lx * img[:, y_high, x_high])


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
