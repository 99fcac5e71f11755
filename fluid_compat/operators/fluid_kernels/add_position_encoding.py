"""The fluid kernels of add_position_encoding, add_position_encoding_grad."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import FLOATS
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.kernels.affine_grid import add_position_encoding_array

__all__: list[str] = []


@register_fluid_kernel("add_position_encoding_grad", "CPU", FLOATS)
class AddPositionEncodingGradKernel(FluidKernel):
    """Out = alpha * X + beta * PE: dX = alpha * dOut."""

    def compute(self, ctx) -> None:
        dout = ctx.input_array("Out@GRAD")
        ctx.set_output("X@GRAD", dout * dout.dtype.type(np.float32(ctx.attr("alpha"))))


@register_fluid_kernel("add_position_encoding", "CPU", ("float32", "float64"))
class AddPositionEncodingKernel(FluidKernel):
    """Out = alpha * X + beta * the sinusoid position encoding (X [batch, seq, dim])."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        out = add_position_encoding_array(ctx.xp, ctx.input_array("X"), ctx.attr("alpha"),
                                          ctx.attr("beta"))
        ctx.set_output("Out", out, self.kernel_type.dtype)

