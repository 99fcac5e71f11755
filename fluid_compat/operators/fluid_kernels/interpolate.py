"""The fluid kernels of bicubic_interp, bicubic_interp_grad, bilinear_interp, bilinear_interp_grad,
linear_interp, linear_interp_grad, nearest_interp, nearest_interp_grad, trilinear_interp,
trilinear_interp_grad.
"""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.infermeta.funcs import float_to_int32, interp_channel_last
from phi.kernels.interpolate import interp_grad_compute
from phi.kernels.interpolate import interp_compute

__all__: list[str] = []


# InterpolateOp::InferShape (v1): the methods each rank of x takes (a Paddle-made case:
# trilinear_interp_v1_method_nearest)
_V1_METHODS = {3: ("linear",), 4: ("bilinear", "nearest", "bicubic"), 5: ("trilinear",)}


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
        with np.errstate(over="ignore"):
            outs = [float_to_int32(np.float32(i) * np.float32(scale)) for i in in_sizes]
    if ctx.has_input("OutSize"):
        size = np.asarray(ctx.input("OutSize").numpy()).reshape(-1)
        if size.size != nd:
            raise InvalidArgument(f"{ctx.type}: OutSize must hold {nd} values, got {size.size}.")
        outs = [int(v) for v in size]
    return outs


@register_fluid_kernel("nearest_interp", "CPU", ("float32", "float64", "int32", "int64",
                                                 "uint8"))
@register_fluid_kernel("bilinear_interp", "CPU", ("float32", "float64", "uint8"))
@register_fluid_kernel("linear_interp", "CPU", ("float32", "float64", "uint8"))
@register_fluid_kernel("trilinear_interp", "CPU", ("float32", "float64", "uint8"))
@register_fluid_kernel("bicubic_interp", "CPU", ("float32", "float64"))
class InterpV1Kernel(FluidKernel):
    """The v1 InterpolateKernel: one kernel for every v1 name, computing the method its
    ``interp_method`` attribute names (checked against x's rank as InterpolateOp's
    InferShape does)."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        method = ctx.attr("interp_method")
        allowed = _V1_METHODS.get(x.ndim)
        if allowed is None:
            raise InvalidArgument(f"{ctx.type}: Input(X) must be a 3-D, 4-D or 5-D tensor, but "
                                  f"received shape {list(x.shape)}.")
        if method not in allowed:
            raise InvalidArgument(
                f"Interpolation method can only be {' or '.join(allowed)} when Input(X) "
                f"dimension is {x.ndim}, but got method = {method}.")
        layout = ctx.attr("data_layout")
        outs = _v1_out_sizes(ctx, x, layout, x.ndim - 2)
        # the sizes are final (no tensors, no scale): v1 takes its ratios from the sizes
        out = interp_compute(ctx.dev_ctx, x, None, [], None, layout, outs, [], method,
                             ctx.attr("align_corners"), ctx.attr("align_mode"), v1=True)
        ctx.set_output("Out", out)


@register_fluid_kernel("nearest_interp_grad", "CPU", ("float32", "float64"))
@register_fluid_kernel("bilinear_interp_grad", "CPU", ("float32", "float64"))
@register_fluid_kernel("linear_interp_grad", "CPU", ("float32", "float64"))
@register_fluid_kernel("trilinear_interp_grad", "CPU", ("float32", "float64"))
@register_fluid_kernel("bicubic_interp_grad", "CPU", ("float32", "float64"))
class InterpV1GradKernel(FluidKernel):
    """The v1 interp grad kernels: the method interp_method names, ratios from the sizes only
    (as the v1 forward), the output sizes Out@GRAD's."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        dout = ctx.input_array("Out@GRAD")
        dx = interp_grad_compute(ctx.dev_ctx, x, None, [], None, dout, ctx.attr("data_layout"),
                                 [], [], ctx.attr("interp_method"), ctx.attr("align_corners"),
                                 ctx.attr("align_mode"), v1=True)
        ctx.set_output("X@GRAD", dx)

