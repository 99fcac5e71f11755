"""Fluid kernels of helper `linalg2`'s ops: affine_channel and add_position_encoding are
STRUCTURE kernels in Paddle 2.6.2 (fluid kernels re-registered in the phi table; their recorded
signature is empty)."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.kernels.affine_grid import add_position_encoding_array, affine_channel_array

__all__: list[str] = []


@register_fluid_kernel("affine_channel", "CPU", ("float32", "float64"))
class AffineChannelKernel(FluidKernel):
    """Out = X * Scale + Bias per channel (NCHW: dim 1; any other layout: the last dim)."""

    dtype_tied_inputs = ("X", "Scale", "Bias")

    def compute(self, ctx) -> None:
        out = affine_channel_array(ctx.xp, ctx.input_array("X"),
                                   ctx.input_array("Scale"), ctx.input_array("Bias"),
                                   ctx.attr("data_layout"))
        ctx.set_output("Out", out, self.kernel_type.dtype)


@register_fluid_kernel("add_position_encoding", "CPU", ("float32", "float64"))
class AddPositionEncodingKernel(FluidKernel):
    """Out = alpha * X + beta * the sinusoid position encoding (X [batch, seq, dim])."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        out = add_position_encoding_array(ctx.xp, ctx.input_array("X"), ctx.attr("alpha"),
                                          ctx.attr("beta"))
        ctx.set_output("Out", out, self.kernel_type.dtype)
