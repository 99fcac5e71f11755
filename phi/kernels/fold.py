"""The ``fold`` and ``fold_grad`` kernels."""

from __future__ import annotations



from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import fold_geometry
from phi.kernels.funcs.conv import col2im
from phi.kernels.unfold import unfold

__all__ = ["fold"]


@register_kernel("fold", ("CPU", "GPU"), dtypes=["float32", "float64", "complex64",
                                                 "complex128"])
def fold(ctx, x: Tensor, output_sizes: list[int], kernel_sizes: list[int], strides: list[int],
         paddings: list[int], dilations: list[int]) -> Tensor:
    """col2im of [N, C * kh * kw, L] columns into [N, C, *output_sizes]: overlapping taps add
    up, in Paddle's order."""
    xp = ctx.xp
    pads, blocks = fold_geometry(x.shape, output_sizes, kernel_sizes, strides, paddings,
                                 dilations)
    n, k = x.shape[0], kernel_sizes[0] * kernel_sizes[1]
    cols = xp.reshape(x, (n, x.shape[1] // k, *kernel_sizes, *blocks))
    out = col2im(xp, cols, strides, dilations, pads[::2], output_sizes)
    return xp.asarray(out, copy=True)


FLOATS_COMPLEX = ["float32", "float64", "complex64", "complex128"]


@register_kernel("fold_grad", ("CPU", "GPU"), dtypes=FLOATS_COMPLEX)
def fold_grad(ctx, x: Tensor, out_grad: Tensor, output_sizes: list[int],
              kernel_sizes: list[int], strides: list[int], paddings: list[int],
              dilations: list[int]) -> Tensor:
    """unfold (im2col) of the output gradient."""
    return ctx.xp.reshape(unfold(ctx, out_grad, kernel_sizes, strides, paddings, dilations),
                          x.shape)
