"""Fluid kernels of deprecated-name ops (nearest_interp, bilinear_interp and top_k v1).

Paddle 2.6.2 keeps these names off the same-named phi kernels (whose semantics changed) and runs
fluid kernels for them.  Here each is a thin adapter over the phi implementation of its v2
successor: the v1 rules differ only in how the output size and the defaults are given.
"""

from __future__ import annotations

import numpy as np
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.kernels.interpolate import bilinear_interp as _bilinear_v2
from phi.kernels.interpolate import nearest_interp as _nearest_v2
from phi.kernels.search import topk as _topk

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []


def _v1_out_hw(ctx, x, layout: str) -> tuple[int, int]:
    """OutSize tensor > out_h / out_w attributes > scale * input size (interpolate_op.h, v1)."""
    if x.ndim != 4:
        raise InvalidArgument(f"{ctx.type}: Input(X) must be a 4-D tensor (N, C, H, W), but "
                              f"received shape {list(x.shape)}.")
    in_h, in_w = (x.shape[1], x.shape[2]) if layout == "NHWC" else (x.shape[2], x.shape[3])
    if ctx.has_input("OutSize"):
        size = np.asarray(ctx.input("OutSize").numpy()).reshape(-1)
        if size.size != 2:
            raise InvalidArgument(f"{ctx.type}: OutSize must hold 2 values, got {size.size}.")
        return int(size[0]), int(size[1])
    out_h, out_w = ctx.attr("out_h"), ctx.attr("out_w")
    scale = ctx.attr("scale")
    if scale and scale > 0:  # static_cast<int>(in * scale): an int times a float, in float
        out_h = int(np.float32(in_h) * np.float32(scale))
        out_w = int(np.float32(in_w) * np.float32(scale))
    if out_h <= 0 or out_w <= 0:
        raise InvalidArgument(f"{ctx.type}: the output size must be positive, got "
                              f"({out_h}, {out_w}); set out_h/out_w, scale or OutSize.")
    return out_h, out_w


class _InterpV1(FluidKernel):
    dtype_tied_inputs = ("X",)
    method = ""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        layout = ctx.attr("data_layout")
        out_h, out_w = _v1_out_hw(ctx, x, layout)
        impl = _bilinear_v2 if self.method == "bilinear" else _nearest_v2
        # scale [] so the ratio comes from the sizes, as v1 computes it
        out = impl(ctx.dev_ctx, x, None, [], None, layout, 0, out_h, out_w, [],
                   self.method, ctx.attr("align_corners"), ctx.attr("align_mode"))
        ctx.set_output("Out", out)


@register_fluid_kernel("nearest_interp", "CPU", ("float32", "float64", "int32", "int64",
                                                 "uint8"))
class NearestInterpV1Kernel(_InterpV1):
    method = "nearest"


@register_fluid_kernel("bilinear_interp", "CPU", ("float32", "float64", "uint8"))
class BilinearInterpV1Kernel(_InterpV1):
    method = "bilinear"


@register_fluid_kernel("top_k", "CPU", ("float32", "float64", "int32", "int64"))
class TopKV1Kernel(FluidKernel):
    """The k largest along the last axis, sorted (K tensor > attribute k)."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        k = ctx.attr("k")
        if ctx.has_input("K"):
            k = int(np.asarray(ctx.input("K").numpy()).reshape(-1)[0])
        values, indices = _topk(ctx.dev_ctx, x, Scalar(k), -1, True, True)
        ctx.set_output("Out", values)
        ctx.set_output("Indices", indices)
