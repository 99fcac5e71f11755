"""The ``pixel_shuffle``, ``pixel_shuffle_grad``, ``pixel_unshuffle`` and
``pixel_unshuffle_grad`` kernels."""

from __future__ import annotations



from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import owned
from phi.kernels.funcs.manipulation import check_4d

__all__ = ["pixel_shuffle", "pixel_unshuffle"]


SHUFFLE_DTYPES = ["float32", "float64"]


@register_kernel("pixel_unshuffle", ("CPU", "GPU"), dtypes=SHUFFLE_DTYPES)
def pixel_unshuffle(ctx, x: Tensor, downscale_factor: int, data_format: str) -> Tensor:
    """Each f x f block of pixels becomes f*f channels."""
    xp = ctx.xp
    last = check_4d(x, data_format, "pixel_unshuffle")
    f = downscale_factor
    n, *rest = x.shape
    c, h, w = (rest[2], rest[0], rest[1]) if last else rest
    if f <= 0 or h % f or w % f:
        raise InvalidArgument(f"Downscale factor[{f}] should divide height[{h}] and "
                              f"width[{w}].")
    if last:
        t = xp.reshape(x, (n, h // f, f, w // f, f, c))
        out = xp.permute_dims(t, (0, 1, 3, 5, 2, 4))
        return xp.reshape(owned(xp, out), (n, h // f, w // f, c * f * f))
    t = xp.reshape(x, (n, c, h // f, f, w // f, f))
    out = xp.permute_dims(t, (0, 1, 3, 5, 2, 4))
    return xp.reshape(owned(xp, out), (n, c * f * f, h // f, w // f))


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


FLOATS = ["float32", "float64"]


@register_kernel("pixel_shuffle_grad", ("CPU", "GPU"), dtypes=FLOATS)
def pixel_shuffle_grad(ctx, out_grad: Tensor, upscale_factor: int, data_format: str) -> Tensor:
    """pixel_unshuffle of the output gradient."""
    return ctx.xp.ascontiguousarray(pixel_unshuffle(ctx, out_grad, upscale_factor, data_format))


@register_kernel("pixel_unshuffle_grad", ("CPU", "GPU"), dtypes=FLOATS)
def pixel_unshuffle_grad(ctx, out_grad: Tensor, downscale_factor: int,
                         data_format: str) -> Tensor:
    """pixel_shuffle of the output gradient."""
    return ctx.xp.ascontiguousarray(pixel_shuffle(ctx, out_grad, downscale_factor, data_format))
