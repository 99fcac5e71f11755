"""The fluid kernels of l1_norm, l1_norm_grad."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.funcs import put
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []


@register_fluid_kernel("l1_norm_grad", "CPU", ("float32",))
class L1NormGradKernel(FluidKernel):
    """l1_norm's grad (l1_norm_op.h): dX = sign(X) * dOut (dOut holds one value)."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        g = xp.reshape(ctx.input_array("Out@GRAD"), ())
        put(ctx, "X@GRAD", xp.sign(x) * g)


@register_fluid_kernel("l1_norm", "CPU", ("float32",))
class L1NormKernel(FluidKernel):
    """Out = sum(|X|), 0-D."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        ctx.set_output("Out", xp.asarray(xp.sum(xp.abs(ctx.input_array("X")))))

