"""The fluid kernels of reshape, reshape_grad."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.funcs import ints, list_values, register
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.common.int_array import IntArray
from phi.kernels.reshape import reshape_infer as _reshape

__all__: list[str] = []


@register("reshape_grad", ("float32", "float64", "int16", "int32", "int64"))
class ReshapeGradKernel(FluidKernel):
    """X@GRAD = Out@GRAD with X's dims."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        ctx.set_output("X@GRAD", ctx.input_array("Out@GRAD").reshape(x.shape).copy())


@register_fluid_kernel("reshape", "CPU", ("float32", "float64", "int16", "int32", "int64"))
class ReshapeV1Kernel(FluidKernel):
    """X with new dims (ShapeTensor list > Shape tensor > attribute; 0 copies, one -1)."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        if ctx.multi_input("ShapeTensor"):
            shape = list_values(ctx, "ShapeTensor", False)
        elif ctx.has_input("Shape"):
            shape = ints(ctx, ctx.input("Shape"), "Shape", True)
        else:
            shape = list(ctx.attr("shape"))
        ctx.set_output("Out", _reshape(ctx.dev_ctx, x, IntArray(shape)))

