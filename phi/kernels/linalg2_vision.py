"""Affine and sampling kernels of helper `linalg2` (Paddle's paddle/phi/kernels/{affine_grid,
grid_sample,add_position_encoding,bilinear}_kernel*).  affine_channel and add_position_encoding
are STRUCTURE (fluid) kernels in Paddle 2.6.2: fluid_compat/operators/fluid_kernels/linalg2.py,
over the ``*_array`` functions here."""

from __future__ import annotations

import itertools

import numpy as np

from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import affine_grid_out_dims, int_array_data

__all__ = ["add_position_encoding_array", "affine_channel_array", "affine_grid", "bilinear",
           "grid_sample"]

# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


def affine_channel_array(xp, x, scale, bias, data_layout: str):
    """x * scale + bias per channel: dim 1 for NCHW, the last dim for any other layout (the
    default "AnyLayout" included, as Paddle's kernel compares with kNCHW only)."""
    if x.ndim < 2:
        raise InvalidArgument(f"affine_channel: Input(X) must have rank >= 2, got "
                              f"{list(x.shape)}.")
    c = x.shape[1] if data_layout == "NCHW" else x.shape[-1]
    if scale.shape != (c,) or bias.shape != (c,):
        raise InvalidArgument(f"affine_channel: Input(Scale) {list(scale.shape)} and Input(Bias) "
                              f"{list(bias.shape)} must be [{c}] (the channels of X).")
    view = [1] * x.ndim
    view[1 if data_layout == "NCHW" else -1] = c
    return (x * scale.reshape(view) + bias.reshape(view)).astype(x.dtype)


def _linspace(xp, n, align_corners, dtype):
    """Paddle's affine grid axis: -1 + i * 2 / (n - 1), scaled by (n - 1) / n unless
    align_corners; n = 1 divides by 0 there (0 * inf: the whole grid is NaN, as Paddle's)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        step = dtype(2) / dtype(n - 1)
        v = (dtype(-1) + step * xp.arange(n, dtype=dtype)).astype(dtype)
    if not align_corners:
        v = (v * dtype((n - 1) / n)).astype(dtype)
    return v


@register_kernel("affine_grid", ("CPU", "GPU"), dtypes=REAL)
def affine_grid(ctx, input: Tensor, output_shape: IntArray, align_corners: bool) -> Tensor:
    """The sampling grid theta @ (x, y[, z], 1) over the normalized output coordinates."""
    xp = ctx.xp
    shape = [int(v) for v in int_array_data(output_shape)]
    dims = affine_grid_out_dims(input.shape, shape)
    dt = input.dtype.type
    axes = [_linspace(xp, n, align_corners, dt) for n in shape[2:]]     # D?, H, W
    mesh = xp.meshgrid(*axes, indexing="ij")
    base = xp.stack([*mesh[::-1], xp.ones_like(mesh[0])], axis=-1)     # x (W), y (H), z, 1
    out = xp.einsum("...k,njk->n...j", base, input)
    return xp.ascontiguousarray(out.astype(input.dtype)).reshape(dims)


def _unnormalize(g, size, align_corners):
    if align_corners:
        return (g + 1) / 2 * (size - 1)
    return ((g + 1) * size - 1) / 2


def _reflect(xp, g, size, align_corners):
    if align_corners:
        span, off = 2 * (size - 1), 0.0
    else:
        span, off = 2 * size, 0.5
    if span <= 0:
        return xp.zeros_like(g)
    a = xp.abs(g + off)
    extra = a - xp.floor(a / span) * span
    return xp.clip(xp.minimum(extra, span - extra) - off, 0, size - 1)


@register_kernel("grid_sample", ("CPU", "GPU"), dtypes=REAL)
def grid_sample(ctx, x: Tensor, grid: Tensor, mode: str, padding_mode: str,
                align_corners: bool) -> Tensor:
    """Samples x [N, C, (D,) H, W] at grid [N, (D',) H', W', 2|3] ((x, y[, z]) in [-1, 1]):
    bilinear / nearest (std::round), padding zeros / border / reflection."""
    xp = ctx.xp
    nd = x.ndim - 2
    sizes = x.shape[2:]                                    # (D,) H, W
    coords = []
    for i in range(nd):                                    # grid[..., 0] indexes W
        size = sizes[nd - 1 - i]
        c = _unnormalize(grid[..., i], size, align_corners)
        if padding_mode == "border":
            c = xp.clip(c, 0, size - 1)
        elif padding_mode == "reflection":
            c = _reflect(xp, c, size, align_corners)
        coords.append(c)
    coords = coords[::-1]                                  # now (D,) H, W order
    n = x.shape[0]
    batch = xp.arange(n).reshape((n,) + (1,) * (grid.ndim - 2))

    def gather(idx):
        inside = xp.ones(idx[0].shape, bool)
        clipped = []
        for k, s in zip(idx, sizes, strict=True):
            inside &= (k >= 0) & (k < s)
            clipped.append(xp.clip(k, 0, s - 1))
        v = xp.moveaxis(x, 1, -1)[(batch, *clipped)]     # [N, *out, C]
        return xp.where(inside[..., None], v, 0).astype(x.dtype)

    if mode == "nearest":
        idx = [xp.where(c >= 0, xp.floor(c + 0.5), xp.ceil(c - 0.5)).astype(np.int64)
               for c in coords]
        out = gather(idx)
    else:
        lo = [xp.floor(c) for c in coords]
        out = xp.zeros((*grid.shape[:-1], x.shape[1]), x.dtype)
        for corner in itertools.product((0, 1), repeat=nd):
            idx, w = [], xp.ones(grid.shape[:-1], x.dtype)
            for c, base, hi in zip(coords, lo, corner, strict=True):
                idx.append((base + hi).astype(np.int64))
                w = w * ((c - base) if hi else (base + 1 - c))
            out = out + gather(idx) * w[..., None].astype(x.dtype)
    return xp.ascontiguousarray(xp.moveaxis(out, -1, 1)).astype(x.dtype)


def add_position_encoding_array(xp, x, alpha: float, beta: float):
    """alpha * x + beta * [sin | cos](pos / 10000^(k / (half - 1))) over the last dim (a
    STRUCTURE kernel in Paddle: run by the fluid kernel of fluid_kernels/linalg2.py)."""
    if x.ndim not in (2, 3) or x.shape[-1] % 2:
        raise InvalidArgument(f"add_position_encoding: Input(X) must be [batch, seq, dim] with "
                              f"an even dim, got {list(x.shape)}.")
    half = x.shape[-1] // 2
    pos = xp.arange(x.shape[-2], dtype=np.float64)[:, None]
    k = xp.arange(half, dtype=np.float64)[None, :]
    val = pos / 10000.0 ** (k / (half - 1)) if half > 1 else pos / 10000.0
    enc = xp.concatenate([xp.sin(val), xp.cos(val)], axis=1)
    dt = x.dtype.type
    return (x * dt(alpha) + enc.astype(x.dtype) * dt(beta)).astype(x.dtype)


@register_kernel("bilinear", ("CPU", "GPU"), dtypes=REAL)
def bilinear(ctx, x: Tensor, y: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    """out[b, s] = x[b] W[s] y[b] (+ bias[0, s])."""
    xp = ctx.xp
    if x.ndim != 2 or y.ndim != 2 or weight.ndim != 3 or weight.shape[1:] != (x.shape[1],
                                                                              y.shape[1]):
        raise InvalidArgument(f"bilinear_tensor_product: X {list(x.shape)}, Y {list(y.shape)} "
                              f"and Weight {list(weight.shape)} do not fit [B, M], [B, N], "
                              "[S, M, N].")
    out = xp.einsum("bm,smn,bn->bs", x, weight, y)
    if bias is not None:
        out = out + bias.reshape(1, -1)
    return out.astype(x.dtype)
