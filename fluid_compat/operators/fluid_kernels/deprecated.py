"""Fluid kernels of deprecated-name ops (the v1 *_interp ops and top_k v1).

Paddle 2.6.2 keeps these names off the same-named phi kernels (whose semantics changed) and runs
fluid kernels for them.  Here each is a thin adapter over the phi implementation of its v2
successor: the v1 rules differ only in how the output size and the defaults are given.
"""

from __future__ import annotations

import numpy as np
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.infermeta.interpolate import interp_channel_last
from phi.kernels.interpolate import interp_compute
from phi.kernels.search import topk as _topk

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []


_V1_RANK = {"linear": 3, "bilinear": 4, "nearest": 4, "bicubic": 4, "trilinear": 5}


def _v1_out_sizes(ctx, x, layout: str, nd: int) -> list[int]:
    """interpolate_op.h (v1): SizeTensor, else a scale (the Scale tensor's first value, else
    the ``scale`` attribute; when > 0, out = int(in * scale) on every axis, an int times a
    float in float), then the OutSize tensor over both; the out_d / out_h / out_w attributes
    otherwise."""
    in_sizes = x.shape[1:-1] if interp_channel_last(layout) else x.shape[2:]
    outs = [ctx.attr(f"out_{a}") for a in ("d", "h", "w")[3 - nd:]]
    if ctx.has_input("SizeTensor"):
        tensors = ctx.multi_input("SizeTensor")
        return [int(np.asarray(t.numpy()).reshape(-1)[0]) for t in tensors]
    scale = ctx.attr("scale")
    if ctx.has_input("Scale"):
        scale = float(np.asarray(ctx.input("Scale").numpy()).reshape(-1)[0])
    if scale and scale > 0:
        outs = [int(np.float32(i) * np.float32(scale)) for i in in_sizes]
    if ctx.has_input("OutSize"):
        size = np.asarray(ctx.input("OutSize").numpy()).reshape(-1)
        if size.size != nd:
            raise InvalidArgument(f"{ctx.type}: OutSize must hold {nd} values, got {size.size}.")
        outs = [int(v) for v in size]
    return outs


class _InterpV1(FluidKernel):
    dtype_tied_inputs = ("X",)
    method = ""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        rank = _V1_RANK[self.method]
        if x.ndim != rank and not (self.method == "nearest" and x.ndim == 5):
            raise InvalidArgument(f"{ctx.type}: Input(X) must be a {rank}-D tensor, but "
                                  f"received shape {list(x.shape)}.")
        layout = ctx.attr("data_layout")
        nd = x.ndim - 2
        outs = _v1_out_sizes(ctx, x, layout, nd)
        # the sizes are final (no tensors, no scale): v1 takes its ratios from the sizes
        out = interp_compute(ctx.dev_ctx, x, None, [], None, layout, outs, [], self.method,
                             ctx.attr("align_corners"), ctx.attr("align_mode"), v1=True)
        ctx.set_output("Out", out)


@register_fluid_kernel("nearest_interp", "CPU", ("float32", "float64", "int32", "int64",
                                                 "uint8"))
class NearestInterpV1Kernel(_InterpV1):
    method = "nearest"


@register_fluid_kernel("bilinear_interp", "CPU", ("float32", "float64", "uint8"))
class BilinearInterpV1Kernel(_InterpV1):
    method = "bilinear"


@register_fluid_kernel("linear_interp", "CPU", ("float32", "float64", "uint8"))
class LinearInterpV1Kernel(_InterpV1):
    method = "linear"


@register_fluid_kernel("trilinear_interp", "CPU", ("float32", "float64", "uint8"))
class TrilinearInterpV1Kernel(_InterpV1):
    method = "trilinear"


@register_fluid_kernel("bicubic_interp", "CPU", ("float32", "float64"))
class BicubicInterpV1Kernel(_InterpV1):
    method = "bicubic"


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
