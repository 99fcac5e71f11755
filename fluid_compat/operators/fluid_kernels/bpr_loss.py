"""The fluid kernels of bpr_loss, bpr_loss_grad."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import FLOATS, as_matrix, check_dtype
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.funcs import quiet

__all__: list[str] = []


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


@register_fluid_kernel("bpr_loss", "CPU", FLOATS)
class BprLossKernel(FluidKernel):
    """Y[i] = -sum_{j != label} TolerableValue(-log(1 + TolerableValue(exp(x_j - x_label))))
    / (C - 1), per row of X [.., C] with an int64 Label [.., 1]."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        check_dtype(ctx, "Label", "int64")
        x = as_matrix(ctx, "X")
        rows, c = x.shape
        lbl = ctx.input_array("Label").reshape(-1).astype(np.int64)
        if lbl.shape[0] != rows or ((lbl < 0) | (lbl >= c)).any():
            raise InvalidArgument(f"bpr_loss: Input(Label) must hold one label in [0, {c}) per "
                                  "row of Input(X).")
        t = x.dtype.type
        pos = xp.take_along_axis(x, lbl[:, None], axis=1)
        with quiet(xp):
            e = xp.clip(xp.exp(x - pos), t(-1e20), t(1e20))
            # the 1.0f + e is computed in T (float promotes to double for float64)
            term = xp.clip(-xp.log(t(1) + e), t(-1e20), t(1e20))
            term = xp.where(xp.arange(c)[None, :] == lbl[:, None], t(0), term)
            y = -xp.sum(term, axis=1, keepdims=True) / t(c - 1)
        ctx.set_output("Y", y.reshape(*ctx.input_array("X").shape[:-1], 1))

