"""The fluid kernels of precision_recall."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import FLOATS, check_dtype
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


def _metrics(states, cls_num: int) -> np.ndarray:
    """Macro / micro precision, recall and F1 of [C, 4] (TP, FP, TN, FN) states."""
    t = states.dtype.type

    def ratio(a, b):
        return a / (a + b) if a > 0.0 or b > 0.0 else t(1.0)

    def f1(p, r):
        return t(2) * p * r / (p + r) if p > 0.0 or r > 0.0 else t(0.0)

    tp, fp, fn = t(0), t(0), t(0)
    macro_p, macro_r = t(0), t(0)
    for i in range(cls_num):
        tp, fp, fn = t(tp + states[i, 0]), t(fp + states[i, 1]), t(fn + states[i, 3])
        macro_p = t(macro_p + ratio(states[i, 0], states[i, 1]))
        macro_r = t(macro_r + ratio(states[i, 0], states[i, 3]))
    macro_p, macro_r = t(macro_p / t(cls_num)), t(macro_r / t(cls_num))
    micro_p, micro_r = t(ratio(tp, fp)), t(ratio(tp, fn))
    return np.array([macro_p, macro_r, f1(macro_p, macro_r), micro_p, micro_r,
                     f1(micro_p, micro_r)], dtype=np.float64)


@register_fluid_kernel("precision_recall", "CPU", FLOATS)
class PrecisionRecallKernel(FluidKernel):
    """TP / FP / TN / FN per class of the batch (weighted), the batch's metrics, then the same
    with StatesInfo added (AccumStatesInfo, AccumMetrics)."""

    def compute(self, ctx) -> None:
        check_dtype(ctx, "Indices", "int32")
        check_dtype(ctx, "Labels", "int32")
        probs = np.asarray(ctx.input_array("MaxProbs"))
        ids = np.asarray(ctx.input_array("Indices")).reshape(-1)
        labels = np.asarray(ctx.input_array("Labels")).reshape(-1)
        cls_num = ctx.attr("class_number")
        t = probs.dtype.type
        for name, v in (("index", ids), ("label", labels)):
            if ((v < 0) | (v >= cls_num)).any():
                raise InvalidArgument(f"precision_recall: the {name} of each instance should be "
                                      f"in [0, {cls_num}), but received "
                                      f"{int(v[(v < 0) | (v >= cls_num)][0])}.")
        w = (np.asarray(ctx.input_array("Weights")).reshape(-1) if ctx.has_input("Weights")
             else np.ones((ids.shape[0],), probs.dtype))
        states = np.zeros((cls_num, 4), dtype=probs.dtype)
        for i, lbl, wi in zip(ids.tolist(), labels.tolist(), w.tolist(), strict=False):
            wi = t(wi)
            if i == lbl:
                states[i, 0] += wi
                states[:, 2] += wi
                states[i, 2] -= wi
            else:
                states[lbl, 3] += wi
                states[i, 1] += wi
                states[:, 2] += wi
                states[i, 2] -= wi
                states[lbl, 2] -= wi
        batch = _metrics(states, cls_num)
        if ctx.has_input("StatesInfo"):
            states = states + np.asarray(ctx.input_array("StatesInfo")).reshape(cls_num, 4)
        ctx.set_output("BatchMetrics", batch)
        ctx.set_output("AccumMetrics", _metrics(states, cls_num))
        ctx.set_output("AccumStatesInfo", states)

