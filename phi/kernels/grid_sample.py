"""The ``grid_sample`` and ``grid_sample_grad`` kernels."""

from __future__ import annotations

import functools
import itertools

import numpy as np

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["grid_sample"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


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


FLOATS = ["float32", "float64"]


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
