"""Fluid kernels of helper `unary2`'s ops.

``soft_relu`` is a STRUCTURE kernel in Paddle 2.6.2 (a fluid kernel re-registered in the phi
table; its recorded signature is empty): a fluid kernel here, over the phi family's formula.
"""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.kernels.unary2 import soft_relu

__all__: list[str] = []


@register_fluid_kernel("soft_relu", "CPU", ("float32", "float64"))
class SoftReluKernel(FluidKernel):
    """Out = log(1 + exp(clip(X, -threshold, threshold)))."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        ctx.set_output("Out", soft_relu(ctx.xp, x, float(ctx.attr("threshold"))))
