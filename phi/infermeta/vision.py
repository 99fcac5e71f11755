"""InferMeta of the vision layout ops: pixel_shuffle, pad3d (Paddle's
paddle/phi/infermeta/unary.cc).  ``pad3d_pairs`` is shared with the kernel."""

from __future__ import annotations

from phi.core.errors import InvalidArgument
from phi.infermeta._utils import (
    UNKNOWN,
    MetaConfig,
    fmt_dims,
    int_array_data,
    is_compile_time_tensor_attr,
)

__all__ = ["pad3d_infer_meta", "pad3d_pairs", "pixel_shuffle_infer_meta"]

_MODES = ("constant", "reflect", "replicate", "circular")


def pixel_shuffle_infer_meta(x, upscale_factor: int, data_format: str, out) -> None:
    """PixelShuffleInferMeta: 4-D x whose channels divide by r*r; [N, C/r^2, H*r, W*r]."""
    dims = tuple(x.dims)
    if len(dims) != 4:
        raise InvalidArgument(f"Input should be a 4-D tensor of format [N, C, H, W] or "
                              f"[N, H, W, C], but got {len(dims)}.")
    if data_format not in ("NCHW", "NHWC"):
        raise InvalidArgument(f"data_format must be one of NCHW and NHWC. But recevied "
                              f"data_format: {data_format}")
    r = upscale_factor
    channel_last = data_format == "NHWC"
    n, c, h, w = (dims[0], dims[3], dims[1], dims[2]) if channel_last else dims
    if c != UNKNOWN and c % (r * r):
        raise InvalidArgument(f"The square of upscale_factor[{r}] should divide the number "
                              f"of channel[{c}]")

    def grow(d: int) -> int:
        return UNKNOWN if d == UNKNOWN else d * r

    c = UNKNOWN if c == UNKNOWN else c // (r * r)
    out.set_dims((n, grow(h), grow(w), c) if channel_last else (n, c, grow(h), grow(w)))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def pad3d_pairs(x_dims, paddings, mode: str, data_format: str) -> list[tuple[int, int]]:
    """Per-axis (before, after) pads of a 5-D x from [left, right, top, bottom, front, back],
    with Paddle's checks (6 values, known mode; reflect pads smaller than the dim, replicate
    and circular on non-empty dims)."""
    if len(paddings) != 6:
        raise InvalidArgument(f"Size of paddings should be equal to 6, but received "
                              f"{len(paddings)}.")
    if mode not in _MODES:
        raise InvalidArgument(f"mode of pad3d should be one of {_MODES}, but received {mode}.")
    left, right, top, bottom, front, back = (int(p) for p in paddings)
    spatial = [(front, back), (top, bottom), (left, right)]
    channel_last = data_format == "NDHWC"
    d_axes = (1, 2, 3) if channel_last else (2, 3, 4)
    for axis, (a, b), name in zip(d_axes, spatial, ("depth", "height", "width"), strict=True):
        size = x_dims[axis]
        if size == UNKNOWN:
            continue
        if mode == "reflect" and (a >= size or b >= size):
            raise InvalidArgument(f"The {name} of Input(X)'s dimension should be greater than "
                                  f"pad in reflect mode, but received {name} = {size} and "
                                  f"pads ({a}, {b}).")
        if mode in ("replicate", "circular") and size == 0 and (a or b):
            raise InvalidArgument(f"The input tensor size can not be 0 for circular or "
                                  f"replicate padding mode ({name}).")
    pairs = [(0, 0)] * 5
    for axis, pair in zip(d_axes, spatial, strict=True):
        pairs[axis] = pair
    return pairs


def pad3d_infer_meta(x, paddings, mode: str, pad_value: float, data_format: str, out, *,
                     config: MetaConfig | None = None) -> None:
    """Pad3dInferMeta: 5-D x grown by the paddings (unknown D, H, W when a tensor gives them
    at compile time)."""
    dims = tuple(x.dims)
    if len(dims) != 5:
        raise InvalidArgument(f"The size of Input(X)'s dimension should be equal to 5, but "
                              f"received {len(dims)} ({fmt_dims(dims)}).")
    if is_compile_time_tensor_attr(paddings, config):
        axes = (1, 2, 3) if data_format == "NDHWC" else (2, 3, 4)
        out_dims = tuple(UNKNOWN if i in axes else d for i, d in enumerate(dims))
    else:
        pairs = pad3d_pairs(dims, int_array_data(paddings), mode, data_format)
        out_dims = tuple(d if d == UNKNOWN else d + a + b for d, (a, b) in zip(dims, pairs,
                                                                              strict=True))
    out.set_dims(out_dims)
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
