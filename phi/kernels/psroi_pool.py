"""The ``psroi_pool`` and ``psroi_pool_grad`` kernels."""

from __future__ import annotations

import math

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.detection import check_rois, roi_batch_ids
from phi.kernels.funcs.quant import round_half_away

__all__ = ["psroi_pool"]


_F = ["float32", "float64"]
_ANY = {"dtype": DataType.ALL_DTYPE}


@register_kernel("psroi_pool", "CPU", dtypes=_F, input_defs={"boxes_num": _ANY})
def psroi_pool(ctx, x: Tensor, boxes: LoDTensor, boxes_num: Tensor | None, pooled_height: int,
               pooled_width: int, output_channels: int, spatial_scale: float) -> Tensor:
    """Position-sensitive average pooling: bin (ph, pw) of output channel c averages input
    channel (c * pooled_height + ph) * pooled_width + pw over the bin."""
    check_rois("psroi_pool", x, boxes)
    n_img, channels, height, width = x.shape
    if channels != output_channels * pooled_height * pooled_width:
        raise InvalidArgument(f"psroi_pool: the channels of X ({channels}) must equal "
                              f"output_channels * pooled_height * pooled_width "
                              f"({output_channels * pooled_height * pooled_width}).")
    ids = roi_batch_ids("psroi_pool", boxes, boxes_num, n_img)
    t = x.dtype.type
    ss = t(np.float32(spatial_scale))
    out = np.zeros((boxes.data.shape[0], output_channels, pooled_height, pooled_width),
                   x.dtype)
    for r, c, ph, pw, ch, hs, he, ws, we, area in psroi_bins(
            boxes.data, x.dtype.type, ss, height, width, pooled_height, pooled_width,
            output_channels):
        img = x[ids[r]]
        out[r, c, ph, pw] = img[ch, hs:he, ws:we].sum(dtype=x.dtype) / area
    return out


def psroi_bins(boxes, t, ss, height: int, width: int, pooled_height: int, pooled_width: int,
               output_channels: int):
    """Paddle's psroi_pool bins, in its loop order: (roi, c, ph, pw, input channel, the bin's
    clipped rows [hs, he) and columns [ws, we), its area in T); empty bins are skipped.  The
    corners are std::round-ed in T, the bin arithmetic is T's, as in Paddle's kernels."""
    rounded = round_half_away(np, boxes.astype(t))
    for r, roi in enumerate(rounded):
        sw, sh = roi[0] * ss, roi[1] * ss
        ew, eh = (roi[2] + t(1)) * ss, (roi[3] + t(1)) * ss
        rh, rw = max(eh - sh, t(0.1)), max(ew - sw, t(0.1))
        bin_h, bin_w = rh / t(pooled_height), rw / t(pooled_width)
        for c in range(output_channels):
            for ph in range(pooled_height):
                hs = min(max(math.floor(bin_h * t(ph) + sh), 0), height)
                he = min(max(math.ceil(bin_h * t(ph + 1) + sh), 0), height)
                for pw in range(pooled_width):
                    ws = min(max(math.floor(bin_w * t(pw) + sw), 0), width)
                    we = min(max(math.ceil(bin_w * t(pw + 1) + sw), 0), width)
                    if he <= hs or we <= ws:
                        continue
                    ch = (c * pooled_height + ph) * pooled_width + pw
                    yield r, c, ph, pw, ch, hs, he, ws, we, t((he - hs) * (we - ws))


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
