"""The fluid kernels of modified_huber_loss, modified_huber_loss_grad."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.funcs import same_shape
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.kernels.funcs import quiet

__all__: list[str] = []


@register_fluid_kernel("modified_huber_loss_grad", "CPU", ("float32",))
class ModifiedHuberLossGradKernel(FluidKernel):
    """From IntermediateVal z: -4 (2y - 1) dout for z < -1, -2 (1 - z)(2y - 1) dout for
    z < 1, else 0."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        y = ctx.input_array("Y")
        z = ctx.input_array("IntermediateVal")
        dout = ctx.input_array("Out@GRAD")
        t = z.dtype.type
        with quiet(xp):
            s = t(2) * y - t(1)
            g = xp.where(z < t(-1), t(-4) * s * dout,
                         xp.where(z < t(1), t(-2) * (t(1) - z) * s * dout, t(0)))
        ctx.set_output("X@GRAD", g)


@register_fluid_kernel("modified_huber_loss", "CPU", ("float32",))
class ModifiedHuberLossKernel(FluidKernel):
    """IntermediateVal z = x * (2y - 1); Out = -4z for z < -1, (1 - z)^2 for z < 1, else 0."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x, y = same_shape(ctx, "X", "Y")
        t = x.dtype.type
        with quiet(xp):
            z = x * (t(2) * y - t(1))
            out = xp.where(z < t(-1), t(-4) * z, xp.where(z < t(1), (t(1) - z) * (t(1) - z), t(0)))
        ctx.set_output("IntermediateVal", z)
        ctx.set_output("Out", out)

