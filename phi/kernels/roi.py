"""RoI feature extraction (Paddle's paddle/phi/kernels/cpu/{roi_align,roi_pool,psroi_pool}_kernel
.cc): each RoI (batch image from RoisNum, else from the ROIs' LoD) pooled to a fixed grid."""

from __future__ import annotations

import math

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.quant import round_half_away

__all__ = ["psroi_pool", "roi_align", "roi_batch_ids", "roi_pool"]

_F = ["float32", "float64"]
_ANY = {"dtype": DataType.ALL_DTYPE}


def roi_batch_ids(op: str, rois, rois_num, batch: int) -> np.ndarray:
    """The image of each RoI: from RoisNum (counts per image) or the ROIs' last LoD level."""
    n = rois.data.shape[0]
    if rois_num is not None:
        counts = np.asarray(rois_num).reshape(-1).astype(np.int64)
        if counts.size != batch:
            raise InvalidArgument(f"{op}: RoisNum holds {counts.size} counts for a batch of "
                                  f"{batch}.")
    elif rois.lod:
        counts = np.diff(np.asarray(rois.lod[-1], np.int64))
        if counts.size != batch:
            raise InvalidArgument(f"{op}: the ROIs' LoD holds {counts.size} images, the batch "
                                  f"size of X is {batch}.")
    else:
        raise InvalidArgument(f"{op}: give RoisNum or a LoD on ROIs (which image each RoI "
                              "belongs to).")
    if counts.sum() != n:
        raise InvalidArgument(f"{op}: the RoI counts add up to {counts.sum()}, ROIs has {n}.")
    return np.repeat(np.arange(batch), counts)


def _check(op, x, rois):
    if x.ndim != 4:
        raise InvalidArgument(f"{op}: X must be 4-D (NCHW), got dims {list(x.shape)}.")
    if rois.data.ndim != 2 or rois.data.shape[1] != 4:
        raise InvalidArgument(f"{op}: ROIs must be [num_rois, 4], got dims "
                              f"{list(rois.data.shape)}.")


@register_kernel("roi_align", "CPU", dtypes=[*_F, "int32"], input_defs={"boxes_num": _ANY})
def roi_align(ctx, x: Tensor, boxes: LoDTensor, boxes_num: Tensor | None, pooled_height: int,
              pooled_width: int, spatial_scale: float, sampling_ratio: int, aligned: bool
              ) -> Tensor:
    """Average of bilinear samples per bin (sampling_ratio per side, else ceil(bin size));
    aligned shifts the RoI by half a pixel and keeps sizes below 1."""
    _check("roi_align", x, boxes)
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


@register_kernel("roi_pool", "CPU", dtypes=[*_F, "int32"], input_defs={"boxes_num": _ANY},
                 output_defs={1: {"dtype": DataType.INT64}})
def roi_pool(ctx, x: Tensor, boxes: LoDTensor, boxes_num: Tensor | None, pooled_height: int,
             pooled_width: int, spatial_scale: float) -> tuple[Tensor, Tensor]:
    """Max per bin of the RoI (corners rounded after scaling); Argmax the flat h * w index,
    -1 (and 0) for an empty bin."""
    _check("roi_pool", x, boxes)
    n_img, channels, height, width = x.shape
    ids = roi_batch_ids("roi_pool", boxes, boxes_num, n_img)
    t = x.dtype.type
    num = boxes.data.shape[0]
    # round(roi * spatial_scale) in the RoIs' arithmetic (float: float, double: double)
    rois = boxes.data.astype(np.result_type(boxes.data.dtype, np.float32))
    corners = round_half_away(np, rois * np.float32(spatial_scale)).astype(np.int64)
    out = np.zeros((num, channels, pooled_height, pooled_width), x.dtype)
    arg = np.full(out.shape, -1, np.int64)
    for r, (sw, sh, ew, eh) in enumerate(corners.tolist()):
        rh, rw = max(eh - sh + 1, 1), max(ew - sw + 1, 1)
        bin_h, bin_w = t(rh) / t(pooled_height), t(rw) / t(pooled_width)
        img = x[ids[r]].reshape(channels, -1)
        for ph in range(pooled_height):
            hs = min(max(math.floor(t(ph) * bin_h) + sh, 0), height)
            he = min(max(math.ceil(t(ph + 1) * bin_h) + sh, 0), height)
            for pw in range(pooled_width):
                ws = min(max(math.floor(t(pw) * bin_w) + sw, 0), width)
                we = min(max(math.ceil(t(pw + 1) * bin_w) + sw, 0), width)
                if he <= hs or we <= ws:
                    continue
                flat = (np.arange(hs, he)[:, None] * width + np.arange(ws, we)[None, :]).ravel()
                vals = img[:, flat]
                k = np.argmax(vals, axis=1)  # the first maximum, as Paddle's strict >
                out[r, :, ph, pw] = vals[np.arange(channels), k]
                arg[r, :, ph, pw] = flat[k]
    return out, arg


@register_kernel("psroi_pool", "CPU", dtypes=_F, input_defs={"boxes_num": _ANY})
def psroi_pool(ctx, x: Tensor, boxes: LoDTensor, boxes_num: Tensor | None, pooled_height: int,
               pooled_width: int, output_channels: int, spatial_scale: float) -> Tensor:
    """Position-sensitive average pooling: bin (ph, pw) of output channel c averages input
    channel (c * pooled_height + ph) * pooled_width + pw over the bin."""
    _check("psroi_pool", x, boxes)
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
