"""The fluid kernels of rank_loss, rank_loss_grad."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.funcs import same_shape, wanted
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.kernels.funcs import quiet

__all__: list[str] = []


@register_fluid_kernel("rank_loss_grad", "CPU", ("float32",))
class RankLossGradKernel(FluidKernel):
    """dLeft = dout * (1 / (1 + exp(right - left)) - label), dRight = -dLeft."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        left = ctx.input_array("Left")
        right = ctx.input_array("Right")
        label = ctx.input_array("Label")
        dout = ctx.input_array("Out@GRAD")
        t = left.dtype.type
        with quiet(xp):
            g = dout * (t(1) / (t(1) + xp.exp(right - left)) - label)
        if wanted(ctx, "Left@GRAD"):
            ctx.set_output("Left@GRAD", g)
        if wanted(ctx, "Right@GRAD"):
            ctx.set_output("Right@GRAD", -g)


@register_fluid_kernel("rank_loss", "CPU", ("float32",))
class RankLossKernel(FluidKernel):
    """Out = log(1 + exp(left - right)) - label * (left - right)."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        left, right = same_shape(ctx, "Left", "Right")
        label = ctx.input_array("Label")
        t = left.dtype.type
        with quiet(xp):
            d = left - right
            ctx.set_output("Out", xp.log(t(1) + xp.exp(d)) - label * d)

