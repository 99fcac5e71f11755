"""The fluid kernels of scale."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []


@register_fluid_kernel("scale", "CPU", ("float32", "float64", "int32", "int64"))
class ScaleKernel(FluidKernel):
    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        scale = ctx.attr("scale")
        if ctx.has_input("ScaleTensor"):
            scale = float(ctx.input("ScaleTensor").numpy().reshape(-1)[0])
        bias = ctx.attr("bias")
        dt = x.dtype
        s = xp.asarray(scale).astype(dt)
        b = xp.asarray(bias).astype(dt)
        out = x * s + b if ctx.attr("bias_after_scale") else (x + b) * s
        ctx.set_output("Out", out.astype(dt, copy=False))

