"""The fluid kernels of positive_negative_pair."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import FLOATS, check_dtype
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


@register_fluid_kernel("positive_negative_pair", "CPU", FLOATS)
class PositiveNegativePairKernel(FluidKernel):
    """Pair counts per query over the ``column`` of Score: pairs of different labels are
    positive when score and label order agree, else negative (equal scores also count as
    neutral); each pair weighs the mean of its two weights; the Accumulate* inputs start the
    sums."""

    def compute(self, ctx) -> None:
        check_dtype(ctx, "QueryID", "int64")
        score = np.asarray(ctx.input_array("Score"))
        label = np.asarray(ctx.input_array("Label")).reshape(-1)
        query = np.asarray(ctx.input_array("QueryID")).reshape(-1)
        t = score.dtype.type
        if score.ndim != 2 or label.shape[0] != score.shape[0] or \
                query.shape[0] != score.shape[0]:
            raise InvalidArgument("positive_negative_pair: Input(Score) must be 2-D [N, width] "
                                  "with one Label and one QueryID per row, but received Score "
                                  f"{list(score.shape)}, Label {label.shape[0]} and QueryID "
                                  f"{query.shape[0]} values.")
        n, width = score.shape
        column = ctx.attr("column")
        column = column + width if column < 0 else column
        if not 0 <= column < width:
            raise InvalidArgument(f"positive_negative_pair: attribute column must be in "
                                  f"[-{width}, {width}), but received {ctx.attr('column')}.")
        s = score[:, column]
        w = (np.asarray(ctx.input_array("Weight")).reshape(-1) if ctx.has_input("Weight")
             else np.ones((n,), score.dtype))
        acc = [t(0), t(0), t(0)]
        if all(ctx.has_input(f"Accumulate{k}Pair") for k in ("Positive", "Negative", "Neutral")):
            acc = [np.asarray(ctx.input_array(f"Accumulate{k}Pair")).reshape(-1)[0]
                   for k in ("Positive", "Negative", "Neutral")]
        pos, neg, neu = acc
        for q in dict.fromkeys(query.tolist()):
            idx = np.nonzero(query == q)[0]
            for a, i in enumerate(idx):
                for j in idx[a + 1:]:
                    if label[i] == label[j]:
                        continue
                    pw = t((w[i] + w[j]) * t(0.5))
                    if s[i] == s[j]:
                        neu = t(neu + pw)
                    if (s[i] - s[j]) * (label[i] - label[j]) > 0.0:
                        pos = t(pos + pw)
                    else:
                        neg = t(neg + pw)
        for slot, v in (("PositivePair", pos), ("NegativePair", neg), ("NeutralPair", neu)):
            ctx.set_output(slot, np.asarray([v], dtype=score.dtype))

