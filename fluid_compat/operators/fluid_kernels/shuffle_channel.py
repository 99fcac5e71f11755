"""The fluid kernels of shuffle_channel, shuffle_channel_grad."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


@register_fluid_kernel("shuffle_channel_grad", "CPU", ("float32", "float64"))
class ShuffleChannelGradKernel(FluidKernel):
    """The forward's own shuffle applied to the gradient ([g, C/g] -> [C/g, g]), as Paddle's
    grad kernel does: the inverse only when g * g == C (shuffle_channel_g2 is the evidence)."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        dout = ctx.input_array("Out@GRAD")
        n, c = dout.shape[:2]
        g = ctx.attr("group")
        t = xp.reshape(dout, (n, g, c // g, *dout.shape[2:]))
        dx = xp.reshape(xp.swapaxes(t, 1, 2), dout.shape)
        ctx.set_output("X@GRAD", xp.ascontiguousarray(dx))


@register_fluid_kernel("shuffle_channel", "CPU", ("float32", "float64"))
class ShuffleChannelKernel(FluidKernel):
    """Out = X [N, C, H, W] with its channels regrouped: [N, g, C/g, H, W] -> [N, C/g, g, H, W]."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        group = ctx.attr("group")
        if x.ndim != 4 or group <= 0 or x.shape[1] % group:
            raise InvalidArgument(f"shuffle_channel: X must be 4-D with channels divisible by "
                                  f"group={group}, got dims {list(x.shape)}.")
        n, c, h, w = x.shape
        y = xp.reshape(x, (n, group, c // group, h, w))
        y = xp.permute_dims(y, (0, 2, 1, 3, 4))
        ctx.set_output("Out", xp.reshape(y, (n, c, h, w)))

