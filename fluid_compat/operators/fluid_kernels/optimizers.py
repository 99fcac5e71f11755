"""Fluid kernels of the optimizer ops Paddle 2.6.2 runs as STRUCTURE kernels: ftrl and
proximal_gd (paddle/fluid/operators/optimizers/{ftrl,proximal_gd}_op.h)."""

from __future__ import annotations

import numpy as np
from phi.core.errors import InvalidArgument

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []


def _lr(ctx, dtype):
    lr = ctx.input_array("LearningRate")
    if lr.size != 1:
        raise InvalidArgument(f"{ctx.type}: LearningRate must hold one value, got shape "
                              f"{list(lr.shape)}.")
    return np.dtype(dtype).type(lr.reshape(-1)[0])


@register_fluid_kernel("proximal_gd", "CPU", ("float32",))
class ProximalGdKernel(FluidKernel):
    """prox = p - lr g; p = sign(prox) max(|prox| - lr l1, 0) / (1 + lr l2) (no shrink
    without l1)."""

    def compute(self, ctx) -> None:
        p, g = ctx.input_array("Param"), ctx.input_array("Grad")
        t = p.dtype.type
        lr = _lr(ctx, p.dtype)
        l1, l2 = t(ctx.attr("l1")), t(ctx.attr("l2"))
        prox = p - lr * g
        if l1 > 0:
            out = np.sign(prox) * np.maximum(np.abs(prox) - lr * l1, t(0)) / (t(1) + lr * l2)
        else:
            out = prox / (t(1) + lr * l2)
        ctx.set_output("ParamOut", out.astype(p.dtype))


@register_fluid_kernel("ftrl", "CPU", ("float32",))
class FtrlKernel(FluidKernel):
    """Follow-the-regularized-leader with l1 / l2 and a learning-rate power."""

    def compute(self, ctx) -> None:
        p, g = ctx.input_array("Param"), ctx.input_array("Grad")
        sq, lin = ctx.input_array("SquaredAccumulator"), ctx.input_array("LinearAccumulator")
        t = p.dtype.type
        lr = _lr(ctx, p.dtype)
        l1, l2 = t(ctx.attr("l1")) + t(1e-10), t(ctx.attr("l2")) + t(1e-10)
        lr_power = t(ctx.attr("lr_power"))
        new_sq = sq + g * g
        if lr_power == t(-0.5):
            lin_out = lin + g - (np.sqrt(new_sq) - np.sqrt(sq)) / lr * p
            y = np.sqrt(new_sq) / lr + t(2) * l2
        else:
            lin_out = lin + g - (new_sq ** -lr_power - sq ** -lr_power) / lr * p
            y = new_sq ** -lr_power / lr + t(2) * l2
        x = l1 * np.sign(lin_out) - lin_out
        out = np.where(np.abs(lin_out) > l1, x / y, t(0))
        ctx.set_output("ParamOut", out.astype(p.dtype))
        ctx.set_output("SquaredAccumOut", new_sq.astype(p.dtype))
        ctx.set_output("LinearAccumOut", lin_out.astype(p.dtype))
