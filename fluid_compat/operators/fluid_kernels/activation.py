"""The fluid kernels of relu, soft_relu, soft_relu_grad."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.funcs import FLOATS, wanted_first
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.kernels.activation import soft_relu

__all__: list[str] = []


@register_fluid_kernel("soft_relu_grad", "CPU", ("float32", "float64"))
class SoftReluGradKernel(FluidKernel):
    """X@GRAD = Out@GRAD * (1 - exp(-Out)) * (-threshold < Out < threshold) (SoftReluGradFunctor;
    the mask is multiplied, so an infinite gradient outside the band gives NaN)."""

    dtype_tied_inputs = ("Out", "Out@GRAD")

    def compute(self, ctx) -> None:
        if not wanted_first(ctx, "X@GRAD"):
            return
        xp = ctx.xp
        out, dout = ctx.input_array("Out"), ctx.input_array("Out@GRAD")
        t = out.dtype.type
        th = t(float(ctx.attr("threshold")))
        with xp.errstate(all="ignore"):
            mask = ((out > -th) & (out < th)).astype(out.dtype)
            ctx.set_output("X@GRAD", xp.asarray(dout * (t(1) - xp.exp(-out)) * mask))


@register_fluid_kernel("relu", "CPU", FLOATS)
class ReluKernel(FluidKernel):
    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        # the legacy fluid relu was Eigen's x.cwiseMax(0), i.e. max(x, 0) = (x < 0) ? 0 : x,
        # which keeps NaN; phi's ReluCPUFunctor (v > 0 ? v : 0) turns NaN into 0.  The two sides
        # really differ there, and `fluid-compat compare` shows it (docs/migrating-an-op.md).
        out = xp.where(x > 0, x, xp.zeros_like(x))
        out = xp.where(xp.isnan(x), x, out)
        ctx.set_output("Out", out)


@register_fluid_kernel("soft_relu", "CPU", ("float32", "float64"))
class SoftReluKernel(FluidKernel):
    """Out = log(1 + exp(clip(X, -threshold, threshold)))."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        ctx.set_output("Out", soft_relu(ctx.xp, x, float(ctx.attr("threshold"))))

