"""The fluid kernels of affine_channel, affine_channel_grad."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.funcs import grad_out
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.kernels.affine_grid import affine_channel_array

__all__: list[str] = []


@register_fluid_kernel("affine_channel_grad", "CPU", ("float32", "float64"))
class AffineChannelGradKernel(FluidKernel):
    """dX = dOut * Scale, dScale = sum(dOut * X), dBias = sum(dOut), per channel (NCHW: dim 1;
    any other layout: the last dim, as the forward kernel)."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        dout = ctx.input_array("Out@GRAD")
        axis = 1 if ctx.attr("data_layout") == "NCHW" else dout.ndim - 1
        view = [1] * dout.ndim
        view[axis] = dout.shape[axis]
        rest = tuple(a for a in range(dout.ndim) if a != axis)
        scale = ctx.input_array("Scale")
        if grad_out(ctx, "X@GRAD"):
            ctx.set_output("X@GRAD", xp.asarray(dout * xp.reshape(scale, view), dout.dtype))
        if grad_out(ctx, "Scale@GRAD"):
            ctx.set_output("Scale@GRAD",
                           xp.sum(dout * ctx.input_array("X"), axis=rest).astype(dout.dtype))
        if grad_out(ctx, "Bias@GRAD"):
            ctx.set_output("Bias@GRAD", xp.sum(dout, axis=rest).astype(dout.dtype))


@register_fluid_kernel("affine_channel", "CPU", ("float32", "float64"))
class AffineChannelKernel(FluidKernel):
    """Out = X * Scale + Bias per channel (NCHW: dim 1; any other layout: the last dim)."""

    dtype_tied_inputs = ("X", "Scale", "Bias")

    def compute(self, ctx) -> None:
        out = affine_channel_array(ctx.xp, ctx.input_array("X"),
                                   ctx.input_array("Scale"), ctx.input_array("Bias"),
                                   ctx.attr("data_layout"))
        ctx.set_output("Out", out, self.kernel_type.dtype)

