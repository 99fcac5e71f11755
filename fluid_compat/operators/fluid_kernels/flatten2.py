"""The fluid kernels of flatten2, flatten2_grad."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.funcs import register
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


@register("flatten2_grad", ("float32", "float64", "int8", "int32", "int64",
                                                "uint8"))
class Flatten2GradKernel(FluidKernel):
    """X@GRAD = Out@GRAD with XShape's dims without the leading 0."""

    def compute(self, ctx) -> None:
        dims = tuple(ctx.input_array("XShape").shape[1:])
        ctx.set_output("X@GRAD", ctx.input_array("Out@GRAD").reshape(dims).copy())


@register_fluid_kernel("flatten2", "CPU", ("float32", "float64", "int8", "int32", "int64",
                                           "uint8"))
class Flatten2Kernel(FluidKernel):
    """Out = X as 2-D: dims before ``axis`` x dims from ``axis``; XShape carries no data."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        axis = ctx.attr("axis")
        if not 0 <= axis <= x.ndim:
            raise InvalidArgument(f"flatten2: axis {axis} out of range [0, {x.ndim}].")
        outer = 1
        for d in x.shape[:axis]:
            outer *= d
        inner = 1
        for d in x.shape[axis:]:
            inner *= d
        ctx.set_output("Out", xp.reshape(x, (outer, inner)))
        ctx.set_output("XShape", xp.empty((0, *tuple(x.shape)), dtype=x.dtype))

