"""The fluid kernels of cross_entropy, cross_entropy2, cross_entropy_grad, cross_entropy_grad2."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import FLOATS, as_matrix, check_dtype
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.funcs import quiet
from phi.kernels.cross_entropy_with_softmax import hard_label_loss, soft_label_loss

__all__: list[str] = []


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


def _cross_entropy(ctx, soft: bool):
    """(Y, prob rows, hard labels): CrossEntropyFunctor over X's last dim."""
    xp = ctx.xp
    x = ctx.input_array("X")
    label = ctx.input_array("Label")
    prob = as_matrix(ctx, "X")
    out_shape = (*x.shape[:-1], 1)
    if soft:
        if label.shape != x.shape:
            raise InvalidArgument(f"{ctx.type}: with soft_label Input(Label) must have X's shape "
                                  f"{list(x.shape)}, but received {list(label.shape)}.")
        y = soft_label_loss(xp, prob, label.reshape(prob.shape), 1)
    else:
        if label.shape != out_shape:
            raise InvalidArgument(f"{ctx.type}: Input(Label) should be {list(out_shape)}, but "
                                  f"received {list(label.shape)}.")
        y = hard_label_loss(ctx.dev_ctx, prob, label.reshape(-1, 1), ctx.attr("ignore_index"),
                            1, ctx.type)
    return y.reshape(out_shape)


@register_fluid_kernel("cross_entropy", "CPU", FLOATS)
class CrossEntropyKernel(FluidKernel):
    """Y = -log(X[label]) (hard, 0 for ``ignore_index``) or -sum(label * log(X)) (soft) over
    X's last dim, log(0) clamped to -1e20 (TolerableValue)."""

    def compute(self, ctx) -> None:
        ctx.set_output("Y", _cross_entropy(ctx, ctx.attr("soft_label")))


@register_fluid_kernel("cross_entropy2", "CPU", FLOATS)
class CrossEntropy2Kernel(FluidKernel):
    """Y as cross_entropy's hard labels; MatchX = X[label] (0 for ``ignore_index``).  XShape is
    left unwritten, as Paddle leaves it."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        check_dtype(ctx, "Label", "int64")
        y = _cross_entropy(ctx, False)
        prob = as_matrix(ctx, "X")
        lbl = ctx.input_array("Label").reshape(-1, 1).astype(np.int64)
        ignored = lbl == ctx.attr("ignore_index")
        match = xp.where(ignored, prob.dtype.type(0),
                         xp.take_along_axis(prob, xp.where(ignored, 0, lbl), axis=1))
        ctx.set_output("Y", y)
        ctx.set_output("MatchX", match.reshape(y.shape))

