"""The ``unfold`` and ``unfold_grad`` kernels."""

from __future__ import annotations



from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import unfold_geometry
from phi.kernels.funcs.conv import col2im, im2col
from phi.kernels.funcs.windows import overhang

__all__ = ["unfold"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
FLOAT_DTYPES = ["float32", "float64"]


@register_kernel("unfold", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def unfold(ctx, x: Tensor, kernel_sizes: list[int], strides: list[int], paddings: list[int],
           dilations: list[int]) -> Tensor:
    """im2col of NCHW x: [N, C * kh * kw, L] (paddings [top, left, bottom, right]); windows
    past the input read zero, as conv's."""
    xp = ctx.xp
    pads, blocks = unfold_geometry(x.shape[2:], kernel_sizes, strides, paddings, dilations)
    for i, size in enumerate(x.shape[2:]):  # grow the trailing side under partial windows
        pads[2 * i + 1] += overhang(size, pads[2 * i], pads[2 * i + 1], blocks[i], strides[i],
                                    dilations[i] * (kernel_sizes[i] - 1) + 1)
    if 0 in x.shape:
        k = kernel_sizes[0] * kernel_sizes[1]
        return xp.zeros((x.shape[0], x.shape[1] * k, blocks[0] * blocks[1]), dtype=x.dtype)
    return im2col(xp, x, kernel_sizes, strides, pads, dilations, blocks)


FLOATS = ["float32", "float64"]


@register_kernel("unfold_grad", ("CPU", "GPU"), dtypes=FLOATS)
def unfold_grad(ctx, x: Tensor, out_grad: Tensor, kernel_sizes: list[int], strides: list[int],
                paddings: list[int], dilations: list[int]) -> Tensor:
    """col2im of the output gradient into x's plane (unfold's geometry: asymmetric paddings
    and partial windows included)."""
    xp = ctx.xp
    pads, blocks = unfold_geometry(x.shape[2:], kernel_sizes, strides, paddings, dilations)
    n, c = x.shape[:2]
    if 0 in x.shape or 0 in blocks:
        return xp.zeros_like(x)
    cols = xp.reshape(out_grad, (n, c, *kernel_sizes, *blocks))
    return xp.ascontiguousarray(col2im(xp, cols, strides, dilations, pads[::2], x.shape[2:]))
