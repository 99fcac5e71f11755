"""Vision layout kernels: pixel_shuffle, pad3d (Paddle's paddle/phi/kernels/cpu/
{pixel_shuffle,pad3d}_kernel.cc)."""

from __future__ import annotations

from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import pad3d_pairs

__all__ = ["pad3d", "pixel_shuffle"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
PAD3D_DTYPES = ["float32", "float64", "int32", "int64", "complex64", "complex128"]
_NUMPY_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@register_kernel("pixel_shuffle", ("CPU", "GPU"), dtypes=["float32", "float64"])
def pixel_shuffle(ctx, x: Tensor, upscale_factor: int, data_format: str) -> Tensor:
    """[N, C*r*r, H, W] -> [N, C, H*r, W*r] (channels last with NHWC)."""
    xp = ctx.xp
    r = upscale_factor
    if data_format == "NHWC":
        n, h, w, c = x.shape
        t = xp.reshape(x, (n, h, w, c // (r * r), r, r))
        t = xp.permute_dims(t, (0, 1, 4, 2, 5, 3))
        return xp.reshape(t, (n, h * r, w * r, c // (r * r)))
    n, c, h, w = x.shape
    t = xp.reshape(x, (n, c // (r * r), r, r, h, w))
    t = xp.permute_dims(t, (0, 1, 4, 2, 5, 3))
    return xp.reshape(t, (n, c // (r * r), h * r, w * r))


@register_kernel("pad3d", ("CPU", "GPU"), dtypes=PAD3D_DTYPES)
def pad3d(ctx, x: Tensor, paddings: IntArray, mode: str, pad_value: float,
          data_format: str) -> Tensor:
    """x padded on D, H and W by ``paddings`` = [left, right, top, bottom, front, back]:
    ``constant`` with ``pad_value``, ``reflect`` (the edge not repeated), ``replicate``,
    ``circular``."""
    xp = ctx.xp
    pairs = pad3d_pairs(x.shape, paddings.data, mode, data_format)
    if mode == "constant":
        return xp.pad(x, pairs, mode="constant", constant_values=x.dtype.type(pad_value))
    return xp.pad(x, pairs, mode=_NUMPY_MODES[mode])
