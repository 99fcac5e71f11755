"""Fluid grad kernels of the loss ops Paddle 2.6.2 runs as STRUCTURE kernels (empty
KernelSignature): bpr_loss_grad, cross_entropy_grad, cross_entropy_grad2, hinge_loss_grad,
modified_huber_loss_grad, rank_loss_grad, teacher_student_sigmoid_loss_grad (Paddle's
paddle/fluid/operators/<op>_op.h grad kernels)."""

from __future__ import annotations

import numpy as np

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.funcs import quiet

__all__: list[str] = []

FLOATS = ("float32", "float64")

# Output LoDs of the grad ops: the fluid InferShape's ShareLoD, and for the phi grad kernels
# (phi/kernels/grad_loss.py) the input whose meta their grad InferMeta copies
# (UnchangedInferMeta / GeneralBinaryGradInferMeta share_meta: dims, dtype and LoD).
for _op, _pairs in {
    "teacher_student_sigmoid_loss_grad": {"X@GRAD": "X"},
    "softmax_grad": {"X@GRAD": "Out"},
    "log_softmax_grad": {"X@GRAD": "Out"},
    "gumbel_softmax_grad": {"X@GRAD": "Out"},
    "fused_softmax_mask_grad": {"X@GRAD": "Softmax"},
    "sigmoid_cross_entropy_with_logits_grad": {"X@GRAD": "X"},
    "bce_loss_grad": {"X@GRAD": "X"},
    "kldiv_loss_grad": {"X@GRAD": "X"},
    "log_loss_grad": {"Predicted@GRAD": "Predicted"},
    "identity_loss_grad": {"X@GRAD": "X"},
    "label_smooth_grad": {"X@GRAD": "Out@GRAD"},
    "dropout_grad": {"X@GRAD": "Out@GRAD"},
    "dropout_nd_grad": {"X@GRAD": "Out@GRAD"},
    "huber_loss_grad": {"X@GRAD": "Residual", "Y@GRAD": "Out@GRAD"},  # (residual, dout)
}.items():
    op_hooks(_op, share_lod=_pairs)


def wanted(ctx, slot: str) -> bool:
    """The op asks for ``slot`` (a variable other than the @EMPTY@ placeholder)."""
    return any(n != "@EMPTY@" for n in ctx.op.outputs.get(slot, ()))


def _tolerable(xp, v):
    """TolerableValue: +-inf -> +-1e20."""
    t = v.dtype.type
    return xp.where(v == np.inf, t(1e20), xp.where(v == -np.inf, t(-1e20), v))


def _labels(ctx, rows: int, classes: int):
    label = ctx.input_array("Label").reshape(-1).astype(np.int64)[:rows]
    bad = (label < 0) | (label >= classes)
    if bad.any():
        raise InvalidArgument(f"{ctx.type}: Input(Label) must be in [0, {classes}), but "
                              f"received {int(label[bad][0])}.")
    return label


@register_fluid_kernel("bpr_loss_grad", "CPU", FLOATS)
class BprLossGradKernel(FluidKernel):
    """Per sample i with label p, for each other class n: g = -dy / ((C - 1) * (1 +
    exp(x_p - x_n))), dx_p += g, dx_n -= g (rows and classes from X's first two dims)."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        dy = ctx.input_array("Y@GRAD").reshape(-1)
        rows, classes = x.shape[0], x.shape[1]
        flat = x.reshape(-1)
        t = x.dtype.type
        label = _labels(ctx, rows, classes)
        m = flat[: rows * classes].reshape(rows, classes)
        pos = m[xp.arange(rows), label][:, None]
        with quiet(xp):
            g = -dy[:rows, None] / (t(classes - 1) * (t(1) + _tolerable(xp, xp.exp(pos - m))))
        other = xp.arange(classes)[None, :] != label[:, None]
        g = xp.where(other, g, t(0))
        grad = -g
        grad[xp.arange(rows), label] = xp.sum(g, axis=1)
        out = xp.zeros(flat.shape, dtype=x.dtype)
        out[: rows * classes] = grad.reshape(-1)
        ctx.set_output("X@GRAD", out.reshape(x.shape))


@register_fluid_kernel("cross_entropy_grad", "CPU", FLOATS)
class CrossEntropyGradKernel(FluidKernel):
    """Hard labels: dx = -dy / x at each row's label class, 0 elsewhere and for
    ``ignore_index``; soft labels: dx = -label * dy / x (rows of X's last dim)."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        classes = x.shape[-1]
        m = x.reshape(-1, classes)
        dy = ctx.input_array("Y@GRAD").reshape(-1, 1)
        t = x.dtype.type
        with quiet(xp):
            if ctx.attr("soft_label"):
                label = ctx.input_array("Label").reshape(-1, classes)
                dx = -label * dy / m
            else:
                lbl = ctx.input_array("Label").reshape(-1).astype(np.int64)
                hit = xp.arange(classes)[None, :] == lbl[:, None]
                keep = (lbl != ctx.attr("ignore_index"))[:, None]
                dx = xp.where(hit & keep, -dy / m, t(0))
        ctx.set_output("X@GRAD", dx.reshape(x.shape))


@register_fluid_kernel("cross_entropy_grad2", "CPU", FLOATS)
class CrossEntropyGrad2Kernel(FluidKernel):
    """X@GRAD of XShape's dims (after its leading 0): -dy / MatchX at each row's label class,
    0 elsewhere and for ``ignore_index``."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        shape = tuple(ctx.input("XShape").data.shape[1:])
        dy = ctx.input_array("Y@GRAD").reshape(-1, 1)
        match = ctx.input_array("MatchX").reshape(-1, 1)
        if not shape:
            raise InvalidArgument("cross_entropy_grad2: Input(XShape) must hold X's dims after "
                                  "a leading 0, but it has none.")
        classes = shape[-1]
        lbl = ctx.input_array("Label").reshape(-1).astype(np.int64)
        t = dy.dtype.type
        hit = xp.arange(classes)[None, :] == lbl[:, None]
        keep = (lbl != ctx.attr("ignore_index"))[:, None]
        with quiet(xp):
            dx = xp.where(hit & keep, -dy / match, t(0))
        ctx.set_output("X@GRAD", dx.reshape(shape))


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
