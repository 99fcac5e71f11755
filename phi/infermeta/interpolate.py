"""InferMeta of the interp ops (the legacy *_interp_v2 ops; Paddle's InterpolateInferMeta,
paddle/phi/infermeta/multiary.cc) and the output-size rule the kernels share
(Interpolate1D/2D/3DCPUFwd): linear (3-D x), bilinear / nearest / bicubic (4-D), trilinear /
nearest (5-D)."""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.infermeta._utils import UNKNOWN, fmt_dims

__all__ = ["float_to_int32", "interp_channel_last", "interp_out_hw", "interp_out_sizes",
           "interpolate_infer_meta"]

_METHODS = {1: ("linear",), 2: ("bilinear", "nearest", "bicubic"), 3: ("trilinear", "nearest")}
_AXES = ("d", "h", "w")


def float_to_int32(v) -> int:
    """static_cast<int> of a float on x86-64: truncation, and INT_MIN for NaN, inf or values
    out of int's range (cvttss2si's "integer indefinite"; Python's int() would raise)."""
    v = float(v)
    if not -2147483649.0 < v < 2147483648.0:  # NaN fails both
        return -2147483648
    return int(v)


def interp_channel_last(data_layout: str) -> bool:
    """ExtractNCDWH compares the layout with kNCHW only: every other layout string ("NHWC",
    and "NCDHW" / "NDHWC" too) puts the channels last."""
    return data_layout != "NCHW"


def interp_out_sizes(in_sizes, outs, scale, size_tensor=None, scale_tensor=None,
                     out_size=None) -> tuple[list[int], list[float]]:
    """(output sizes, scales) of an interp over ``in_sizes`` (1 to 3 axes) in Paddle's order
    of precedence: SizeTensor, else the Scale tensor / ``scale`` attribute (out = int(in *
    scale), an int times a float in float), then OutSize over both; the ``outs`` attributes
    otherwise.  Scales are float32; -1 means none.  The ``scale`` attribute counts for one
    axis when it has a value, for 2 or 3 axes when it has more than one."""
    nd = len(in_sizes)
    names = _AXES[3 - nd:]
    scales = [-1.0] * nd
    outs = [int(o) for o in outs]
    if size_tensor:
        outs = [int(v) for v in size_tensor[:nd]]
    else:
        given, what = None, ""
        if scale_tensor is not None:
            vals = [float(np.float32(v)) for v in scale_tensor]
            given = vals[:nd] if len(vals) > 1 else vals[:1] * nd
            what = "input 'Scale' Tensor"
        elif len(scale) > (0 if nd == 1 else 1):
            given = [float(np.float32(v)) for v in scale[:nd]]
            what = "Attr(scale)"
        if given is not None:
            if len(given) != nd:
                raise InvalidArgument(f"The {what} of Operator(interpolate) must hold {nd} "
                                      f"values, but received {fmt_dims(given)}.")
            for name, s in zip(names, given, strict=True):
                if not s > 0:
                    raise InvalidArgument(
                        f"The scale_{name} in {what} of Operator(interpolate) should be "
                        f"greater than 0, but received value is {s}.")
            scales = given
            with np.errstate(over="ignore"):
                outs = [float_to_int32(np.float32(i) * np.float32(s)) for i, s in
                        zip(in_sizes, scales, strict=True)]
        if out_size is not None:
            outs = [int(v) for v in out_size[:nd]]
    for name, v in zip(names, outs, strict=True):
        if v <= 0:
            raise InvalidArgument(f"out_{name} in Attr(out_shape) of Op(interpolate) should be "
                                  f"greater than 0.")
    return outs, scales


def interp_out_hw(in_hw, out_h: int, out_w: int, scale, size_tensor=None, scale_tensor=None,
                  out_size=None) -> tuple[int, int, float, float]:
    """(out_h, out_w, scale_h, scale_w): interp_out_sizes over two axes."""
    (h, w), (sh, sw) = interp_out_sizes(in_hw, (out_h, out_w), scale, size_tensor,
                                        scale_tensor, out_size)
    return h, w, sh, sw


def interpolate_infer_meta(x, out_size, size_tensor, scale_tensor, data_layout: str, out_d: int,
                           out_h: int, out_w: int, scale, interp_method: str,
                           align_corners: bool, align_mode: int, out) -> None:
    """InterpolateInferMeta (3-D, 4-D, 5-D): x's N and C with the output sizes from the
    attributes; -1 where a tensor (OutSize, SizeTensor, Scale) decides them, as Paddle leaves
    it to the kernel."""
    dims = tuple(x.dims)
    nd = len(dims) - 2
    if nd not in _METHODS:
        raise InvalidArgument(f"Input(X) of Op(interpolate) must be 3-D, 4-D or 5-D, but "
                              f"received {fmt_dims(dims)}.")
    if interp_method not in _METHODS[nd]:
        raise InvalidArgument(
            f"Interpolation method can only be {' or '.join(_METHODS[nd])} when Input(X) "
            f"dimension is {len(dims)}, but got method = {interp_method}.")
    channel_last = interp_channel_last(data_layout)
    n, c = (dims[0], dims[-1]) if channel_last else (dims[0], dims[1])
    spatial = dims[1:-1] if channel_last else dims[2:]
    from_tensor = size_tensor or scale_tensor is not None or out_size is not None
    if from_tensor or (UNKNOWN in spatial and len(scale) > 0):
        sizes = [UNKNOWN] * nd
    else:
        sizes, _ = interp_out_sizes(spatial, (out_d, out_h, out_w)[3 - nd:], scale)
    out.set_dims((n, *sizes, c) if channel_last else (n, c, *sizes))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
