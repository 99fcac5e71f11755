"""Fluid kernels of window ops that Paddle 2.6.2 runs as STRUCTURE kernels (an empty
KernelSignature: the kernel reads the op's attributes itself): spp and lrn.

Both are computed with the phi window helpers (phi/kernels/pooling.py), so their window
arithmetic is the pooling kernels'.
"""

from __future__ import annotations

import math

from phi.core.errors import InvalidArgument
from phi.kernels.pooling import pool_fixed

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []


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
