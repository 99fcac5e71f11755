"""The fluid kernels of spp, spp_grad."""

from __future__ import annotations

import math

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.pool import pool_window_grad
from phi.kernels.pool import pool_fixed

__all__: list[str] = []


@register_fluid_kernel("spp_grad", "CPU", ("float32", "float64"))
class SppGradKernel(FluidKernel):
    """Per pyramid level, the pooling gradient of its slice of Out (max: the first maximum of
    each window; avg: exclusive), summed over the levels."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        out = ctx.input_array("Out")
        dout = ctx.input_array("Out@GRAD")
        kind = ctx.attr("pooling_type")
        n, c, h, w = x.shape
        dx = xp.zeros_like(x)
        offset = 0
        for p in range(ctx.attr("pyramid_height")):
            bins = 2 ** p
            (kh, ph), (kw, pw) = spp_level(h, bins), spp_level(w, bins)
            width = c * bins * bins
            shape = (n, c, bins, bins)
            level = [xp.reshape(a[:, offset:offset + width], shape) for a in (out, dout)]
            dx += pool_window_grad(xp, x, level[0], level[1], (kh, kw), (kh, kw), (ph, pw),
                                   kind, True)
            offset += width
        ctx.set_output("X@GRAD", dx)


def spp_level(size: int, bins: int) -> tuple[int, int]:
    """(kernel = stride, padding) of one pyramid level along one axis, as SppKernel computes
    them: k = ceil(in / bins), pad = (k * bins - in + 1) / 2 (C++ ints of non-negative
    operands).  The level always has ``bins`` windows per axis, starting at i * k - pad (a
    Paddle-made case with more bins than rows: spp_max_h3_bins_exceed_input)."""
    k = math.ceil(size / bins)
    return k, (k * bins - size + 1) // 2


@register_fluid_kernel("spp", "CPU", ("float32", "float64"))
class SppKernel(FluidKernel):
    """Spatial pyramid pooling: levels of 1, 2, 4 ... bins per axis, each max / exclusive-avg
    pooled, flattened per sample and concatenated: [N, C * (4**height - 1) / 3]."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        height, kind = ctx.attr("pyramid_height"), ctx.attr("pooling_type")
        if x.ndim != 4:
            raise InvalidArgument(f"spp: Input(X) must be 4-D (N, C, H, W), but received shape "
                                  f"{list(x.shape)}.")
        if kind not in ("max", "avg"):
            raise InvalidArgument(f"spp: pooling_type must be max or avg, got {kind!r}.")
        if height < 0:
            raise InvalidArgument(f"spp: pyramid_height must be non-negative, got {height}.")
        n, c, h, w = x.shape
        parts = []
        for p in range(height):
            bins = 2 ** p
            (kh, ph), (kw, pw) = spp_level(h, bins), spp_level(w, bins)
            level = pool_fixed(ctx.dev_ctx, x, (kh, kw), (kh, kw), (ph, pw), (bins, bins),
                               kind, True)
            parts.append(xp.reshape(level, (n, c * bins * bins)))
        out = xp.concatenate(parts, axis=1) if parts else xp.zeros((n, 0), dtype=x.dtype)
        ctx.set_output("Out", xp.ascontiguousarray(out))

