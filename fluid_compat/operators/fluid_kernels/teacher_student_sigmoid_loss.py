"""The fluid kernels of teacher_student_sigmoid_loss, teacher_student_sigmoid_loss_grad."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import FLOATS
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.kernels.funcs import quiet

__all__: list[str] = []


@register_fluid_kernel("teacher_student_sigmoid_loss_grad", "CPU", FLOATS)
class TeacherStudentSigmoidLossGradKernel(FluidKernel):
    """x clipped to [lower, upper] (0 gradient at or beyond a bound); p = sigmoid(x);
    -dout * (-p | 1 - p | label - 2p) for label < -1 | < 0 | else."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        label = ctx.input_array("Label")
        dout = ctx.input_array("Y@GRAD")
        t = x.dtype.type
        up = t(np.float32(ctx.attr("soft_max_up_bound")))
        low = t(np.float32(ctx.attr("soft_max_lower_bound")))
        with quiet(xp):
            s = xp.where(x > up, up, xp.where(x < low, low, x))
            pred = (1.0 / (1.0 + xp.exp(-s.astype(np.float64)))).astype(x.dtype)
            g = xp.where(label < t(-1), t(0) - pred,
                         xp.where(label < t(0), t(1) - pred, label - t(2) * pred))
            g = xp.where((s >= up) | (s <= low), t(0), g)
            ctx.set_output("X@GRAD", g * (dout * t(-1)))


@register_fluid_kernel("teacher_student_sigmoid_loss", "CPU", FLOATS)
class TeacherStudentSigmoidLossKernel(FluidKernel):
    """The click / teacher-score loss of Paddle's kernel: label < -1: no click, no score;
    < 0: click, no score; < 1: no click, score = label; else click, score = label - 1
    (computed in double, as the C++ mixes float with 1.0).  The bounds only serve the
    gradient."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        label = ctx.input_array("Label")
        xd = x.astype(np.float64)
        lab = label.astype(np.float64)
        with quiet(xp):
            pos = xp.maximum(xd, 0.0)
            soft = xp.log(1.0 + xp.exp(-xp.abs(xd)))
            y = xp.where(lab < -1.0, pos + soft,
                         xp.where(lab < 0.0, pos - xd + soft,
                                  xp.where(lab < 1.0, pos + soft + pos - xd * lab + soft,
                                           pos - xd + soft + pos - xd * (lab - 1.0) + soft)))
        ctx.set_output("Y", y.astype(x.dtype))

