"""InferMeta of bilinear_interp / nearest_interp (the legacy *_interp_v2 ops; Paddle's
InterpolateInferMeta for 4-D inputs, paddle/phi/infermeta/multiary.cc) and the output-size
rule the kernels share (Interpolate2DCPUFwd)."""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.infermeta._utils import UNKNOWN, fmt_dims

__all__ = ["interp_out_hw", "interpolate_infer_meta"]


def interp_out_hw(in_hw, out_h: int, out_w: int, scale, size_tensor=None, scale_tensor=None,
                  out_size=None) -> tuple[int, int, float, float]:
    """(out_h, out_w, scale_h, scale_w) in Paddle's order of precedence: SizeTensor, else
    Scale tensor / ``scale`` attribute (out = int(in * scale)), then OutSize over both; the
    attributes out_h / out_w otherwise.  Scales are float32; -1 means none."""
    scale_h = scale_w = -1.0
    if size_tensor:
        out_h, out_w = int(size_tensor[0]), int(size_tensor[1])
    else:
        if scale_tensor is not None:
            vals = [float(np.float32(v)) for v in scale_tensor]
            scale_h, scale_w = (vals[0], vals[1]) if len(vals) > 1 else (vals[0], vals[0])
            for what, s in (("scale_h", scale_h), ("scale_w", scale_w)):
                if not s > 0:
                    raise InvalidArgument(
                        f"The {what} in input 'Scale' Tensor of Operator(interpolate) should "
                        f"be greater than 0, but received value is {s}.")
        elif len(scale) > 1:
            scale_h, scale_w = float(np.float32(scale[0])), float(np.float32(scale[1]))
            for what, s in (("scale_h", scale_h), ("scale_w", scale_w)):
                if not s > 0:
                    raise InvalidArgument(
                        f"The {what} in Attr(scale) of Operator(interpolate) should be greater "
                        f"than 0, but received value is {s}.")
        if scale_h > 0 and scale_w > 0:
            out_h = int(np.float32(in_hw[0]) * np.float32(scale_h))
            out_w = int(np.float32(in_hw[1]) * np.float32(scale_w))
        if out_size is not None:
            out_h, out_w = int(out_size[0]), int(out_size[1])
    for what, v in (("out_h", out_h), ("out_w", out_w)):
        if v <= 0:
            raise InvalidArgument(f"{what} in Attr(out_shape) of Op(interpolate) should be "
                                  f"greater than 0.")
    return out_h, out_w, scale_h, scale_w


def interpolate_infer_meta(x, out_size, size_tensor, scale_tensor, data_layout: str, out_d: int,
                           out_h: int, out_w: int, scale, interp_method: str,
                           align_corners: bool, align_mode: int, out) -> None:
    """InterpolateInferMeta (4-D): x's N and C with the output size from the attributes; -1
    where a tensor (OutSize, SizeTensor, Scale) decides it, as Paddle leaves it to the kernel."""
    dims = tuple(x.dims)
    if len(dims) != 4:
        raise InvalidArgument(f"Input(X) of Op({interp_method}_interp) must be 4-D here (the "
                              f"bridge implements bilinear and nearest), but received "
                              f"{fmt_dims(dims)}.")
    if interp_method not in ("bilinear", "nearest"):
        raise InvalidArgument(f"Interpolation method can only be \"bilinear\" or \"nearest\" "
                              f"when Input(X) dimension is 4, but got method = "
                              f"{interp_method}.")
    channel_last = data_layout == "NHWC"
    n, c = (dims[0], dims[3]) if channel_last else (dims[0], dims[1])
    in_hw = (dims[1], dims[2]) if channel_last else (dims[2], dims[3])
    from_tensor = size_tensor or scale_tensor is not None or out_size is not None
    if from_tensor or (UNKNOWN in in_hw and len(scale) > 1):
        h = w = UNKNOWN
    else:
        h, w, _, _ = interp_out_hw(in_hw, out_h, out_w, scale)
    out.set_dims((n, h, w, c) if channel_last else (n, c, h, w))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
