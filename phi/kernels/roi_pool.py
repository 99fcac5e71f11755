"""The ``roi_pool`` and ``roi_pool_grad`` kernels."""

from __future__ import annotations

import math

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.detection import check_rois, roi_batch_ids
from phi.kernels.funcs.quant import round_half_away

__all__ = ["roi_pool"]


_F = ["float32", "float64"]
_ANY = {"dtype": DataType.ALL_DTYPE}


@register_kernel("roi_pool", "CPU", dtypes=[*_F, "int32"], input_defs={"boxes_num": _ANY},
                 output_defs={1: {"dtype": DataType.INT64}})
def roi_pool(ctx, x: Tensor, boxes: LoDTensor, boxes_num: Tensor | None, pooled_height: int,
             pooled_width: int, spatial_scale: float) -> tuple[Tensor, Tensor]:
    """Max per bin of the RoI (corners rounded after scaling); Argmax the flat h * w index,
    -1 (and 0) for an empty bin."""
    check_rois("roi_pool", x, boxes)
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
