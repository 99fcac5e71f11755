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

import functools
import itertools

import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import interp_channel_last, interp_out_sizes, maxout_axis, unfold_geometry
from phi.kernels.conv_transpose import col2im
from phi.kernels.funcs import cast_array, quiet
from phi.kernels.interpolate import (
    _SIZE_INPUTS,
    _cubic_axis,
    _linear_axis,
    _ratio,
)
from phi.kernels.linalg2_vision import _linspace
from phi.kernels.manip import channel_shuffle, pixel_unshuffle, temporal_shift
from phi.kernels.vision import pad3d, pixel_shuffle
from phi.kernels.window_ops import unfold

__all__ = ["interp_grad_compute"]

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


# -- interpolation -------------------------------------------------------------------------------
# Every interp method is separable and linear: out = x times one [out, in] matrix per axis (the
# forward's neighbours and weights, interpolate module); the gradient multiplies dOut by the
# transposed matrices.

def _interp_matrix(method: str, in_size: int, out_size: int, ratio, align_corners: bool,
                   align_mode: int, work):
    """The [out, in] matrix of one axis: the forward's indices and weights (in ``work``)."""
    mat = np.zeros((out_size, in_size), dtype=work)
    rows = np.arange(out_size)
    if method == "nearest":
        pos = ratio * rows.astype(np.float32)
        if align_corners:
            pos = pos.astype(np.float64) + 0.5
        np.add.at(mat, (rows, np.minimum(pos.astype(np.int64), in_size - 1)), work(1))
    elif method == "bicubic":
        idx, coefs = _cubic_axis(work, in_size, out_size, ratio, align_corners)
        for j in range(4):
            np.add.at(mat, (rows, idx[:, j]), coefs[j].astype(work))
    else:
        low, high, w_low, w_high = _linear_axis(in_size, out_size, ratio,
                                                align_mode == 0 and not align_corners)
        np.add.at(mat, (rows, low), w_low.astype(work))
        np.add.at(mat, (rows, high), w_high.astype(work))
    return mat


def interp_grad_compute(ctx, x, out_size, size_tensor, scale_tensor, out_grad,
                        data_layout: str, outs, scale, method: str, align_corners: bool,
                        align_mode: int, *, v1: bool = False):
    """Input gradient of every interp kernel (v2, and v1 with ratios from the sizes only):
    the output sizes are out_grad's, the scales Scale's or the ``scale`` attribute's."""
    xp = ctx.xp

    def host(a):
        return None if a is None else np.asarray(ctx.to_host(a)).reshape(-1).tolist()

    nd = x.ndim - 2
    cl = interp_channel_last(data_layout)
    in_sizes = x.shape[1:-1] if cl else x.shape[2:]
    out_sizes = out_grad.shape[1:-1] if cl else out_grad.shape[2:]
    if tuple(out_sizes) == tuple(in_sizes):
        return xp.asarray(out_grad, copy=True)
    scales = [-1.0] * nd
    if not v1:
        # the grad kernel takes the scales from Scale / ``scale`` even when SizeTensor gives
        # the sizes (the forward ignores them then): confb_bilinear_v2_sizetensor_and_scale
        _, scales = interp_out_sizes(in_sizes, outs, scale, None, host(scale_tensor),
                                     host(out_size))
    dtype = ctx.data_type(out_grad)
    work_t = dtype if dtype in (DataType.FLOAT32, DataType.FLOAT64) else DataType.FLOAT32
    work = np.float64 if work_t is DataType.FLOAT64 else np.float32
    g = ctx.astype(out_grad, work_t)
    if cl:
        g = xp.permute_dims(g, (0, nd + 1, *range(1, nd + 1)))
    for i, (n_in, n_out, s) in enumerate(zip(in_sizes, out_sizes, scales, strict=True)):
        mat = _interp_matrix(method, n_in, n_out, _ratio(n_in, n_out, s, align_corners),
                             align_corners, align_mode, work)
        g = xp.moveaxis(xp.tensordot(g, xp.asarray(mat), axes=([2 + i], [0])), -1, 2 + i)
    if cl:
        g = xp.permute_dims(g, (0, *range(2, nd + 2), 1))
    g = xp.ascontiguousarray(g)
    return g if work_t is dtype else cast_array(ctx, g, dtype)


def _register_interp_grad(name: str):
    @register_kernel(name, ("CPU", "GPU"), dtypes=INTERP_GRAD_DTYPES, input_defs=_SIZE_INPUTS)
    def kernel(ctx, x: Tensor, out_size: Tensor | None, size_tensor: list[Tensor],
               scale_tensor: Tensor | None, out_grad: Tensor, data_layout: str, out_d: int,
               out_h: int, out_w: int, scale: list[float], interp_method: str,
               align_corners: bool, align_mode: int) -> Tensor:
        nd = x.ndim - 2
        return interp_grad_compute(ctx, x, out_size, size_tensor, scale_tensor, out_grad,
                                   data_layout, (out_d, out_h, out_w)[3 - nd:], scale,
                                   interp_method, align_corners, align_mode)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"Input gradient of {name[:-5]} (the method interp_method names)."
    return kernel


# Paddle 2.6.2 CPU registrations of the five interp grad kernels
INTERP_GRAD_DTYPES = ["float32", "float64", "float16", "bfloat16"]
for _name in ("linear_interp_grad", "bilinear_interp_grad", "trilinear_interp_grad",
              "bicubic_interp_grad", "nearest_interp_grad"):
    _register_interp_grad(_name)


# -- grid_sample ---------------------------------------------------------------------------------

def _grid_coord(xp, g, size: int, padding_mode: str, align_corners: bool):
    """(source coordinate, d coordinate / d grid) of one grid axis, as the forward computes the
    coordinate (unnormalize, then border clip or reflection) and Paddle's ClipWithMask /
    ReflectCoordinates scale it: 0 where the clip cut, -1 where a reflection flipped."""
    t = g.dtype.type
    c = (g + t(1)) / t(2) * t(size - 1) if align_corners else ((g + t(1)) * t(size) - t(1)) / t(2)
    d = xp.full(g.shape, t((size - 1) / 2 if align_corners else size / 2), dtype=g.dtype)
    if padding_mode == "border":
        r = xp.clip(c, t(0), t(size - 1))
        return r, d * (r == c)
    if padding_mode == "reflection":
        span, off = (2 * (size - 1), 0.0) if align_corners else (2 * size, 0.5)
        if span <= 0:
            return xp.zeros_like(c), xp.zeros_like(c)
        shifted = c + t(off)
        a = xp.abs(shifted)
        extra = a - xp.floor(a / t(span)) * t(span)
        flip = extra > t(span) - extra
        reflected = xp.minimum(extra, t(span) - extra) - t(off)
        r = xp.clip(reflected, t(0), t(size - 1))
        sign = xp.where(shifted < 0, t(-1), t(1)) * xp.where(flip, t(-1), t(1))
        return r, d * sign * (r == reflected)
    return c, d


@register_kernel("grid_sample_grad", ("CPU", "GPU"), dtypes=FLOATS)
def grid_sample_grad(ctx, x: Tensor, grid: Tensor, out_grad: Tensor, mode: str,
                     padding_mode: str, align_corners: bool) -> tuple[Tensor, Tensor]:
    """(dx, dgrid) of grid_sample: dOut scattered to the sampled neighbours with their
    weights; dgrid from the weights' slopes times the coordinate transform's (nearest: 0)."""
    xp = ctx.xp
    nd = x.ndim - 2
    sizes = x.shape[2:]
    coords, dcoords = [], []
    for i in range(nd):  # grid[..., 0] indexes W
        c, d = _grid_coord(xp, grid[..., i], sizes[nd - 1 - i], padding_mode, align_corners)
        coords.append(c)
        dcoords.append(d)
    coords, dcoords = coords[::-1], dcoords[::-1]  # (D,) H, W order
    n = x.shape[0]
    xl = xp.moveaxis(x, 1, -1)  # [N, *in, C]
    dxl = xp.zeros(xl.shape, dtype=x.dtype)
    dout = xp.moveaxis(out_grad, 1, -1)  # [N, *out, C]
    batch = xp.broadcast_to(xp.reshape(xp.arange(n), (n,) + (1,) * (grid.ndim - 2)),
                            grid.shape[:-1])

    def corner(idx, weight):
        """Scatter dOut * weight into the corner where it lies inside; its values (0 outside)."""
        inside = xp.ones(idx[0].shape, bool)
        clipped = []
        for k, s in zip(idx, sizes, strict=True):
            inside &= (k >= 0) & (k < s)
            clipped.append(xp.clip(k, 0, s - 1))
        where = tuple(a[inside] for a in (batch, *clipped))
        xp.add.at(dxl, where, (dout * weight[..., None])[inside])
        return xp.where(inside[..., None], xl[(batch, *clipped)], x.dtype.type(0))

    dgrid = xp.zeros(grid.shape, dtype=grid.dtype)
    if mode == "nearest":
        corner([xp.where(c >= 0, xp.floor(c + 0.5), xp.ceil(c - 0.5)).astype(np.int64)
                for c in coords], xp.ones(grid.shape[:-1], x.dtype))
    else:
        lo = [xp.floor(c) for c in coords]
        for hi in itertools.product((0, 1), repeat=nd):
            parts = [(c - b) if h else (b + 1 - c) for c, b, h in zip(coords, lo, hi,
                                                                       strict=True)]
            w = functools.reduce(lambda a, b: a * b, parts)
            v = corner([(b + h).astype(np.int64) for b, h in zip(lo, hi, strict=True)], w)
            vg = xp.sum(v * dout, axis=-1)
            for i in range(nd):  # d weight / d coord i: the other axes' parts, signed
                others = [p for j, p in enumerate(parts) if j != i]
                slope = functools.reduce(lambda a, b: a * b, others, x.dtype.type(1))
                sign = x.dtype.type(1 if hi[i] else -1)
                dgrid[..., nd - 1 - i] += vg * slope * sign * dcoords[i]
    return (xp.ascontiguousarray(xp.moveaxis(dxl, -1, 1)),
            xp.ascontiguousarray(dgrid.astype(grid.dtype)))
