"""The ``auc`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, PreconditionNotMet
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["auc"]


F32 = ["float32"]


_ANY = {"dtype": DataType.ALL_DTYPE}  # labels, indices and state tensors of their own dtypes


def _auc_area(pos, neg) -> float:
    """calcAuc: trapezoids from the highest bucket down, over total pos * total neg."""
    area = tot_pos = tot_neg = 0.0
    for p, q in zip(reversed(pos.tolist()), reversed(neg.tolist()), strict=True):
        prev_pos, prev_neg = tot_pos, tot_neg
        tot_pos += p
        tot_neg += q
        area += abs(tot_neg - prev_neg) * (tot_pos + prev_pos) / 2.0
    if tot_pos > 0.0 and tot_neg > 0.0:
        area = area / tot_pos / tot_neg
    return area


# a host algorithm over small state tensors (numpy): CPU only, GPU places fall back to it
@register_kernel("auc", ("CPU",), dtypes=F32,
                 input_defs={"label": _ANY, "stat_pos": _ANY, "stat_neg": _ANY,
                             "ins_tag_weight": _ANY},
                 output_defs={0: {"dtype": DataType.FLOAT64}, 1: {"dtype": DataType.INT64},
                              2: {"dtype": DataType.INT64}})
def auc(ctx, input: Tensor, label: Tensor, stat_pos: Tensor, stat_neg: Tensor,
        ins_tag_weight: Tensor | None, curve: str, num_thresholds: int, slide_steps: int
        ) -> tuple[Tensor, Tensor, Tensor]:
    """(auc, stat_pos_out, stat_neg_out): the batch's predictions (last column of Predict) are
    counted into num_thresholds + 1 buckets of the state (a ring of ``slide_steps`` windows plus
    their sum and a step counter when ``slide_steps`` > 0), then the ROC area of the summed
    buckets; an InsTagWeight starting with 0 marks fake data (counted in no sum)."""
    xp = ctx.xp
    buckets = num_thresholds + 1
    size = (1 + slide_steps) * buckets + (1 if slide_steps > 0 else 0)
    pos = np.array(xp.reshape(stat_pos, (-1,)), dtype=np.int64, copy=True)
    neg = np.array(xp.reshape(stat_neg, (-1,)), dtype=np.int64, copy=True)
    if pos.size < size or neg.size < size:
        raise InvalidArgument(f"auc: Input(StatPos) and Input(StatNeg) need {size} elements for "
                              f"num_thresholds={num_thresholds} and slide_steps={slide_steps}, "
                              f"but hold {pos.size} and {neg.size}.")
    fake = ins_tag_weight is not None and float(xp.reshape(ins_tag_weight, (-1,))[0]) == 0.0
    shape_pos, shape_neg = stat_pos.shape, stat_neg.shape
    area = 0.0
    if not (slide_steps == 0 and fake):
        pred = np.asarray(input).reshape(input.shape[0], -1)[:, -1] if input.size else \
            np.zeros((0,), np.float32)
        if ((pred > 1) | (pred < 0)).any():
            msg = "less or equal 1" if (pred > 1).any() else "gather or equal 0"
            raise PreconditionNotMet(f"The predict data must {msg}.")
        lbl = np.asarray(label).reshape(-1)[:pred.size]
        # static_cast<uint32_t>(p * num_thresholds), the product in float
        bins = (pred * np.float32(num_thresholds)).astype(np.uint32)
        if slide_steps == 0:
            np.add.at(pos, bins[lbl > 0], 1)
            np.add.at(neg, bins[lbl == 0], 1)
            area = _auc_area(pos[:buckets], neg[:buckets])
        else:
            cur = int(pos[(slide_steps + 1) * buckets]) % slide_steps * buckets
            tot = slide_steps * buckets
            for st in (pos, neg):
                st[tot:tot + buckets] -= st[cur:cur + buckets]
                st[cur:cur + buckets] = 0
            np.add.at(pos, cur + bins[lbl > 0], 1)
            np.add.at(neg, cur + bins[lbl == 0], 1)
            if not fake:
                for st in (pos, neg):
                    st[tot:tot + buckets] += st[cur:cur + buckets]
            area = _auc_area(pos[tot:tot + buckets], neg[tot:tot + buckets])
            pos[(slide_steps + 1) * buckets] += 1
            neg[(slide_steps + 1) * buckets] += 1
    return (xp.asarray(np.float64(area)), xp.asarray(pos.reshape(shape_pos)),
            xp.asarray(neg.reshape(shape_neg)))
