"""The fluid kernel of minus.

``minus`` is a STRUCTURE kernel in Paddle 2.6.2 (a fluid kernel re-registered in the phi table;
its recorded signature is empty): a fluid kernel here.
"""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


@register_fluid_kernel("minus", "CPU", ("float32",))
class MinusKernel(FluidKernel):
    """Out = X - Y; MinusOp's InferShape wants X and Y of the same dims (no broadcasting)."""

    def compute(self, ctx) -> None:
        x, y = ctx.input_array("X"), ctx.input_array("Y")
        if tuple(x.shape) != tuple(y.shape):
            raise InvalidArgument(
                f"minus: Minus operator must take two tensor with same dim, but received "
                f"input X dim is: {list(x.shape)}, Y dim is: {list(y.shape)}.")
        ctx.set_output("Out", ctx.xp.asarray(x - y))

