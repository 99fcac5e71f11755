"""The fluid kernels of row_conv, row_conv_grad."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import rank, wanted
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


@register_fluid_kernel("row_conv_grad", "CPU", ("float32",))
class RowConvGradKernel(FluidKernel):
    """out[k] = sum_w x[k + w] * filter[w] within each sequence (LoD offsets, or each [T, D]
    slice of [B, T, D]): dx[k + w] += dout[k] * filter[w], dfilter[w] += dout[k] * x[k + w]."""

    def compute(self, ctx) -> None:
        x, f = ctx.input_array("X"), ctx.input_array("Filter")
        dout = ctx.input_array("Out@GRAD")
        lod = ctx.input("X").lod
        rows = x.reshape(-1, x.shape[-1])
        drows = dout.reshape(-1, x.shape[-1])
        if lod:
            offsets = [int(v) for v in lod[-1]]
        else:
            t = x.shape[1] if x.ndim == 3 else rows.shape[0]
            offsets = list(range(0, rows.shape[0] + 1, t)) if t else [0]
        dx, df = np.zeros_like(rows), np.zeros_like(f)
        for a, b in pairwise(offsets):
            for w in range(min(f.shape[0], b - a)):
                dx[a + w:b] += drows[a:b - w] * f[w]
                df[w] += np.sum(drows[a:b - w] * rows[a + w:b], axis=0, dtype=f.dtype)
        if wanted(ctx, "X@GRAD"):
            ctx.set_output("X@GRAD", dx.reshape(x.shape))
        if wanted(ctx, "Filter@GRAD"):
            ctx.set_output("Filter@GRAD", df)


@register_fluid_kernel("row_conv", "CPU", ("float32",))
class RowConvKernel(FluidKernel):
    """Lookahead convolution: out[k] = sum_w x[k + w] * filter[w] within each sequence (LoD
    offsets, or each [T, D] slice of a [B, T, D] input without LoD)."""

    def compute(self, ctx) -> None:
        rank(ctx, "X", (2, 3), " ([T, D] with a LoD, or [B, T, D])")
        rank(ctx, "Filter", (2,), " [future context, D]")
        x, f = ctx.input_array("X"), ctx.input_array("Filter")
        if f.shape[1] != x.shape[-1]:
            raise InvalidArgument(f"row_conv: Filter's width {f.shape[1]} must equal X's last "
                                  f"dimension {x.shape[-1]}.")
        lod = ctx.input("X").lod
        if lod:
            offsets = [int(v) for v in lod[-1]]
            rows = x
        else:
            rows = x.reshape(-1, x.shape[-1])
            t = x.shape[1] if x.ndim == 3 else rows.shape[0]
            offsets = list(range(0, rows.shape[0] + 1, t)) if t else [0]
        out = np.zeros_like(rows)
        for a, b in pairwise(offsets):
            for k in range(a, b):
                acc = np.zeros(rows.shape[1], rows.dtype)
                for w in range(min(f.shape[0], b - k)):
                    acc += rows[k + w] * f[w]
                out[k] = acc
        ctx.set_output("Out", out.reshape(x.shape))

