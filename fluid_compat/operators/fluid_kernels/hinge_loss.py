"""The fluid kernels of hinge_loss, hinge_loss_grad."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.funcs import same_shape
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.funcs import quiet

__all__: list[str] = []


@register_fluid_kernel("hinge_loss_grad", "CPU", ("float32",))
class HingeLossGradKernel(FluidKernel):
    """dLogits = -dLoss * (2 * label - 1) where 1 - logits * (2 * label - 1) > 0, else 0."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("Logits")
        y = ctx.input_array("Labels")
        dl = ctx.input_array("Loss@GRAD")
        t = x.dtype.type
        with quiet(xp):
            s = t(2) * y - t(1)
            ctx.set_output("Logits@GRAD", xp.where(t(1) - x * s > t(0), dl * -s, t(0)))


@register_fluid_kernel("hinge_loss", "CPU", ("float32",))
class HingeLossKernel(FluidKernel):
    """Loss = max(0, 1 - logits * (2 * label - 1))."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x, y = same_shape(ctx, "Logits", "Labels")
        if x.ndim != 2 or x.shape[1] != 1:
            raise InvalidArgument("hinge_loss: Input(Logits) should be [N, 1], but received "
                                  f"{list(x.shape)}.")
        t = x.dtype.type
        with quiet(xp):
            ctx.set_output("Loss", xp.maximum(t(0), t(1) - x * (t(2) * y - t(1))))

