"""Gradients of the vision / layout ops: pixel_shuffle, pixel_unshuffle, channel_shuffle,
temporal_shift, pad3d, maxout, prelu, fold, unfold, unpool, unpool3d, affine_grid (Paddle's
paddle/phi/kernels/cpu/*_grad_kernel.cc).

Ops that only move elements (shuffles, temporal_shift, pad3d) are transposed through their
forward kernel: the forward runs on the 1-based positions of x (0 where it inserts a constant),
and each output gradient is added back at the position it came from (one bincount).  The
others are written out: fold and unfold are each other's transposes, unpool gathers where it
scattered, maxout / prelu as Paddle's grad functors.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.window import maxout_axis, unfold_geometry
from phi.kernels.conv_transpose import col2im
from phi.kernels.funcs import quiet
from phi.kernels.linalg2_vision import _linspace
from phi.kernels.manip import channel_shuffle, pixel_unshuffle, temporal_shift
from phi.kernels.vision import pad3d, pixel_shuffle
from phi.kernels.window_ops import unfold

__all__: list[str] = []

FLOATS = ["float32", "float64"]
FLOATS_COMPLEX = ["float32", "float64", "complex64", "complex128"]


def _transposed(ctx, forward, x_shape, dout, *args):
    """The gradient of a forward that only moves (or drops, or zero-fills) elements: forward
    run on x's 1-based positions, dout summed back per source position."""
    xp = ctx.xp
    size = int(np.prod(x_shape))
    pos = xp.reshape(xp.arange(1, size + 1, dtype=np.int64), x_shape)
    src = xp.reshape(forward(ctx, pos, *args), (-1,))
    flat = xp.reshape(dout, (-1,))
    if xp.iscomplexobj(flat):
        parts = [xp.bincount(src, weights=p, minlength=size + 1) for p in (flat.real,
                                                                           flat.imag)]
        dx = parts[0] + 1j * parts[1]
    else:
        dx = xp.bincount(src, weights=flat, minlength=size + 1)
    return xp.reshape(dx[1:], x_shape).astype(dout.dtype)


@register_kernel("pixel_shuffle_grad", ("CPU", "GPU"), dtypes=FLOATS)
def pixel_shuffle_grad(ctx, out_grad: Tensor, upscale_factor: int, data_format: str) -> Tensor:
    """pixel_unshuffle of the output gradient."""
    return ctx.xp.ascontiguousarray(pixel_unshuffle(ctx, out_grad, upscale_factor, data_format))


@register_kernel("pixel_unshuffle_grad", ("CPU", "GPU"), dtypes=FLOATS)
def pixel_unshuffle_grad(ctx, out_grad: Tensor, downscale_factor: int,
                         data_format: str) -> Tensor:
    """pixel_shuffle of the output gradient."""
    return ctx.xp.ascontiguousarray(pixel_shuffle(ctx, out_grad, downscale_factor, data_format))


@register_kernel("channel_shuffle_grad", ("CPU", "GPU"), dtypes=FLOATS)
def channel_shuffle_grad(ctx, out_grad: Tensor, groups: int, data_format: str) -> Tensor:
    """channel_shuffle of the output gradient with C / groups groups (the inverse regrouping)."""
    c = out_grad.shape[3] if data_format == "NHWC" else out_grad.shape[1]
    return channel_shuffle(ctx, out_grad, c // groups, data_format)


@register_kernel("temporal_shift_grad", ("CPU", "GPU"), dtypes=FLOATS)
def temporal_shift_grad(ctx, out_grad: Tensor, seg_num: int, shift_ratio: float,
                        data_format: str) -> Tensor:
    """Each frame's gradient shifted back to the frame it came from (zeros past the ends)."""
    return _transposed(ctx, temporal_shift, out_grad.shape, out_grad, seg_num, shift_ratio,
                       data_format)


@register_kernel("pad3d_grad", ("CPU", "GPU"), dtypes=FLOATS_COMPLEX)
def pad3d_grad(ctx, x: Tensor, out_grad: Tensor, paddings: IntArray, mode: str,
               pad_value: float, data_format: str) -> Tensor:
    """The padding's gradient added back where reflect / replicate / circular copied from;
    constant padding passes nothing."""
    return _transposed(ctx, pad3d, x.shape, out_grad, paddings, mode, 0.0, data_format)


@register_kernel("maxout_grad", ("CPU", "GPU"), dtypes=FLOATS)
def maxout_grad(ctx, x: Tensor, out: Tensor, out_grad: Tensor, groups: int,
                axis: int) -> Tensor:
    """Each output's gradient to the first element of its group equal to the output
    (MaxOutGradFunctor); a group with none (a NaN output) passes nothing."""
    xp = ctx.xp
    axis = maxout_axis(x.shape, groups, axis)
    shape = list(x.shape)
    shape[axis:axis + 1] = [shape[axis] // groups, groups]
    parts = xp.reshape(x, shape)
    o = xp.expand_dims(out, axis + 1)
    hit = parts == o
    first = hit & (xp.cumsum(hit, axis=axis + 1) == 1)
    dx = xp.where(first, xp.expand_dims(out_grad, axis + 1), x.dtype.type(0))
    return xp.reshape(dx, x.shape)


@register_kernel("prelu_grad", ("CPU", "GPU"), dtypes=FLOATS)
def prelu_grad(ctx, x: Tensor, alpha: Tensor, out_grad: Tensor, data_format: str,
               mode: str) -> tuple[Tensor, Tensor]:
    """dx = x > 0 ? dout : alpha * dout; dalpha = sum of x * dout where x <= 0, per alpha
    element (all: one sum; channel: per channel; element: over the batch)."""
    xp = ctx.xp
    if mode == "channel":
        caxis = 1 if data_format == "NCHW" else x.ndim - 1
        shape = [1] * x.ndim
        shape[caxis] = -1
        a = xp.reshape(alpha, tuple(shape))
        axes = tuple(i for i in range(x.ndim) if i != caxis)
    elif mode == "element":
        a = xp.reshape(alpha, (1, *x.shape[1:]))
        axes = (0,)
    else:
        a = xp.reshape(alpha, (-1,))[0]
        axes = tuple(range(x.ndim))
    pos = x > 0
    with quiet(xp):
        dx = xp.where(pos, out_grad, a * out_grad)
        da = xp.sum(xp.where(pos, x.dtype.type(0), x * out_grad), axis=axes)
    return xp.asarray(dx, dtype=x.dtype), xp.reshape(da, alpha.shape).astype(alpha.dtype)


@register_kernel("fold_grad", ("CPU", "GPU"), dtypes=FLOATS_COMPLEX)
def fold_grad(ctx, x: Tensor, out_grad: Tensor, output_sizes: list[int],
              kernel_sizes: list[int], strides: list[int], paddings: list[int],
              dilations: list[int]) -> Tensor:
    """unfold (im2col) of the output gradient."""
    return ctx.xp.reshape(unfold(ctx, out_grad, kernel_sizes, strides, paddings, dilations),
                          x.shape)


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


def _unpool_grad(ctx, x, indices, out_grad):
    """dx[n, c, i] = dout[n, c, indices[n, c, i]] (Unpool2dMaxGradFunctor)."""
    xp = ctx.xp
    n, c = x.shape[:2]
    idx = xp.reshape(indices, (n, c, -1)).astype(np.int64)
    g = xp.reshape(out_grad, (n, c, -1))
    if 0 in idx.shape or g.shape[2] == 0:
        return xp.zeros_like(x)
    return xp.reshape(xp.take_along_axis(g, idx, axis=2), x.shape)


_INDICES_INT32 = {"indices": {"dtype": DataType.INT32}}


@register_kernel("unpool_grad", ("CPU", "GPU"), dtypes=FLOATS, input_defs=_INDICES_INT32)
def unpool_grad(ctx, x: Tensor, indices: Tensor, out: Tensor, out_grad: Tensor,
                ksize: list[int], strides: list[int], paddings: list[int],
                output_size: IntArray, data_format: str) -> Tensor:
    """Each input's gradient read where unpool put it."""
    return _unpool_grad(ctx, x, indices, out_grad)


@register_kernel("unpool3d_grad", ("CPU", "GPU"), dtypes=FLOATS, input_defs=_INDICES_INT32)
def unpool3d_grad(ctx, x: Tensor, indices: Tensor, out: Tensor, out_grad: Tensor,
                  ksize: list[int], strides: list[int], paddings: list[int],
                  output_size: list[int], data_format: str) -> Tensor:
    """Each input's gradient read where unpool3d put it."""
    return _unpool_grad(ctx, x, indices, out_grad)


@register_kernel("affine_grid_grad", ("CPU", "GPU"), dtypes=FLOATS)
def affine_grid_grad(ctx, output_grad: Tensor, output_shape: IntArray,
                     align_corners: bool) -> Tensor:
    """dTheta[n, j, k] = sum over the grid of dOut[n, ..., j] * base[..., k], base the
    normalized output coordinates (x, y[, z], 1)."""
    xp = ctx.xp
    data = output_shape.data if isinstance(output_shape, IntArray) else output_shape
    shape = [int(v) for v in data]
    dt = output_grad.dtype.type
    axes = [_linspace(xp, n, align_corners, dt) for n in shape[2:]]
    mesh = xp.meshgrid(*axes, indexing="ij")
    base = xp.stack([*mesh[::-1], xp.ones_like(mesh[0])], axis=-1)
    k = base.shape[-1]
    g = xp.reshape(output_grad, (shape[0], -1, k - 1))
    b = xp.reshape(base, (-1, k))
    return xp.ascontiguousarray(xp.matmul(xp.swapaxes(g, 1, 2), b).astype(output_grad.dtype))
