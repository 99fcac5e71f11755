"""bilinear_interp and nearest_interp of 4-D tensors (Paddle's paddle/phi/kernels/cpu/
interpolate_kernel.cc): the legacy bilinear_interp_v2 / nearest_interp_v2 ops.

Source coordinates are computed as Paddle computes them, in float32 (the ratios, the weights)
and double (``ratio * (k + 0.5) - 0.5``), so that the chosen neighbours and the weights are
Paddle's bit for bit; the weighted sum runs in x's dtype.
"""

from __future__ import annotations

import numpy as np

from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.interpolate import interp_out_hw
from phi.kernels.funcs import cast_array

__all__ = ["bilinear_interp", "nearest_interp"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
BILINEAR_DTYPES = ["float32", "float64", "float16", "bfloat16", "uint8"]
NEAREST_DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8"]
_HOST = {"dtype": DataType.ALL_DTYPE, "backend": Backend.ALL_BACKEND}
_SIZE_INPUTS = {"out_size": _HOST, "size_tensor": _HOST, "scale_tensor": _HOST}


def _ratio(in_size: int, out_size: int, scale: float, align_corners: bool) -> np.float32:
    if out_size <= 1:
        return np.float32(0.0)
    if align_corners:
        return np.float32(in_size - 1) / np.float32(out_size - 1)
    if scale > 0:
        return np.float32(1.0 / scale)
    return np.float32(in_size) / np.float32(out_size)


def _sizes(ctx, x, out_size, size_tensor, scale_tensor, data_layout, out_h, out_w, scale):
    def host(a):
        return None if a is None else np.asarray(ctx.to_host(a)).reshape(-1).tolist()

    in_hw = x.shape[1:3] if data_layout == "NHWC" else x.shape[2:4]
    sizes = [host(t)[0] for t in size_tensor] if size_tensor else None
    h, w, sh, sw = interp_out_hw(in_hw, out_h, out_w, scale, sizes, host(scale_tensor),
                                 host(out_size))
    return in_hw, (h, w), (sh, sw)


def _nchw(xp, x, data_layout):
    return xp.permute_dims(x, (0, 3, 1, 2)) if data_layout == "NHWC" else x


def _back(xp, out, data_layout):
    out = xp.permute_dims(out, (0, 2, 3, 1)) if data_layout == "NHWC" else out
    return xp.asarray(out, copy=True)


def _linear_axis(in_size, out_size, ratio, align_flag: bool):
    """(low index, high index, weight of low, weight of high) per output position."""
    k = np.arange(out_size)
    if align_flag:
        src = ratio.astype(np.float64) * (k + 0.5) - 0.5  # float * double: in double
        low = np.maximum(src.astype(np.int64), 0)
        idx = np.maximum(src.astype(np.float32), np.float32(0))
        d_low = idx - low.astype(np.float32)
    else:
        pos = ratio * k.astype(np.float32)  # float * int: in float
        low = np.maximum(pos.astype(np.int64), 0)
        d_low = pos - low.astype(np.float32)
    high = np.minimum(low + 1, in_size - 1)
    return low, high, np.float32(1) - d_low, d_low


@register_kernel("bilinear_interp", ("CPU", "GPU"), dtypes=BILINEAR_DTYPES,
                 input_defs=_SIZE_INPUTS)
def bilinear_interp(ctx, x: Tensor, out_size: Tensor | None, size_tensor: list[Tensor],
                    scale_tensor: Tensor | None, data_layout: str, out_d: int, out_h: int,
                    out_w: int, scale: list[float], interp_method: str, align_corners: bool,
                    align_mode: int) -> Tensor:
    """Bilinear resize of the H and W axes; ``align_mode`` 0 without ``align_corners`` takes
    half-pixel centres, otherwise src = ratio * dst."""
    xp = ctx.xp
    (in_h, in_w), (oh, ow), (sh, sw) = _sizes(ctx, x, out_size, size_tensor, scale_tensor,
                                              data_layout, out_h, out_w, scale)
    if (oh, ow) == (in_h, in_w):
        return xp.asarray(x, copy=True)
    align_flag = align_mode == 0 and not align_corners
    yn, ys, wys_n, wys_s = _linear_axis(in_h, oh, _ratio(in_h, oh, sh, align_corners),
                                        align_flag)
    xw, xe, wx_w, wx_e = _linear_axis(in_w, ow, _ratio(in_w, ow, sw, align_corners),
                                      align_flag)
    src = _nchw(xp, x, data_layout)
    dtype = ctx.data_type(src)
    # float and double compute in their type; uint8 / float16 / bfloat16 elements meet the
    # float weights in float, and the sum is converted back (uint8 truncates)
    work = dtype if dtype in (DataType.FLOAT32, DataType.FLOAT64) else DataType.FLOAT32
    src = ctx.astype(src, work)
    # the north row weighs 1 - d_n, the west column 1 - d_w
    a = ctx.asarray(wys_n, work)[:, None]
    b = ctx.asarray(wys_s, work)[:, None]
    c = ctx.asarray(wx_w, work)[None, :]
    d = ctx.asarray(wx_e, work)[None, :]
    rows_n, rows_s = src[:, :, yn, :], src[:, :, ys, :]
    out = (rows_n[:, :, :, xw] * a * c + rows_s[:, :, :, xw] * b * c
           + rows_n[:, :, :, xe] * a * d + rows_s[:, :, :, xe] * b * d)
    if work is not dtype:
        out = cast_array(ctx, out, dtype)
    return _back(xp, out, data_layout)


@register_kernel("nearest_interp", ("CPU", "GPU"), dtypes=NEAREST_DTYPES,
                 input_defs=_SIZE_INPUTS)
def nearest_interp(ctx, x: Tensor, out_size: Tensor | None, size_tensor: list[Tensor],
                   scale_tensor: Tensor | None, data_layout: str, out_d: int, out_h: int,
                   out_w: int, scale: list[float], interp_method: str, align_corners: bool,
                   align_mode: int) -> Tensor:
    """Nearest-neighbour resize of the H and W axes: src = int(ratio * dst) (+ 0.5 with
    ``align_corners``)."""
    xp = ctx.xp
    (in_h, in_w), (oh, ow), (sh, sw) = _sizes(ctx, x, out_size, size_tensor, scale_tensor,
                                              data_layout, out_h, out_w, scale)
    if (oh, ow) == (in_h, in_w):
        return xp.asarray(x, copy=True)

    def index(in_size, n, s):
        pos = _ratio(in_size, n, s, align_corners) * np.arange(n).astype(np.float32)
        if align_corners:
            pos = pos.astype(np.float64) + 0.5
        return np.minimum(pos.astype(np.int64), in_size - 1)

    src = _nchw(xp, x, data_layout)
    out = src[:, :, index(in_h, oh, sh), :][:, :, :, index(in_w, ow, sw)]
    return _back(xp, out, data_layout)
