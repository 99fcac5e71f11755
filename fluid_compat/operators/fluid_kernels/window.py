"""Fluid kernels of window ops that Paddle 2.6.2 runs as STRUCTURE kernels (an empty
KernelSignature: the kernel reads the op's attributes itself): spp and lrn.

Both are computed with the phi window helpers (phi/kernels/pooling.py), so their window
arithmetic is the pooling kernels'.
"""

from __future__ import annotations

import math

from phi.core.errors import InvalidArgument
from phi.kernels.pool import pool_fixed

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


@register_fluid_kernel("lrn", "CPU", ("float32",))
class LrnKernel(FluidKernel):
    """Local response normalisation across channels (LRNFunctor<CPU>): MidOut = k + alpha *
    (sum of x**2 over the n channels centred on c), Out = x * MidOut**-beta (alpha is not
    divided by n).  MidOut is built as Paddle builds it, a running sum over the channels in
    x's dtype: channel 0 adds its n squares one by one, channel c adds square c + n - 1 and
    subtracts square c - 1 of the previous one."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        n = ctx.attr("n")
        k, alpha, beta = (x.dtype.type(ctx.attr(a)) for a in ("k", "alpha", "beta"))
        if x.ndim != 4:
            raise InvalidArgument(f"lrn: Input(X)'s dimension must be 4, but received shape "
                                  f"{list(x.shape)}.")
        if n <= 0 or n % 2 != 1:
            raise InvalidArgument(f"Argument(n) should be a positive odd value, but received "
                                  f"n({n}).")
        for name, value in (("k", k), ("alpha", alpha), ("beta", beta)):
            if not value >= 0:
                raise InvalidArgument(f"lrn: Argument({name}) should be non-negative, but "
                                      f"received {name}({value}).")
        nhwc = ctx.attr("data_format") == "NHWC"
        xc = xp.transpose(x, (0, 3, 1, 2)) if nhwc else x
        channels = xc.shape[1]
        pre = (n - 1) // 2
        squared = xp.zeros((xc.shape[0], channels + n - 1, *xc.shape[2:]), dtype=x.dtype)
        squared[:, pre:pre + channels] = xc * xc
        mid = xp.empty_like(xc)
        acc = xp.full((xc.shape[0], *xc.shape[2:]), k, dtype=x.dtype)
        for c in range(n):
            acc = acc + alpha * squared[:, c]
        if channels:
            mid[:, 0] = acc
        for c in range(1, channels):
            acc = acc + alpha * squared[:, c + n - 1]
            acc = acc + (-alpha) * squared[:, c - 1]
            mid[:, c] = acc
        with xp.errstate(all="ignore"):
            out = xp.power(mid, -beta) * xc
        if nhwc:
            out, mid = xp.transpose(out, (0, 2, 3, 1)), xp.transpose(mid, (0, 2, 3, 1))
        ctx.set_output("Out", xp.ascontiguousarray(out))
        ctx.set_output("MidOut", xp.ascontiguousarray(mid))
