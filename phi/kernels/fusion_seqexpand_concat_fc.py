"""The ``fusion_seqexpand_concat_fc`` kernel."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.sequence import jit_act, seq_offsets

__all__ = ["fusion_seqexpand_concat_fc"]


@register_kernel("fusion_seqexpand_concat_fc", "CPU", dtypes=["float32", "float64"])
def fusion_seqexpand_concat_fc(ctx, x: list[LoDTensor], fc_weight: Tensor,
                               fc_bias: Tensor | None, fc_activation: str
                               ) -> tuple[LoDTensor, Tensor]:
    """act(concat(X[0], expand(X[1:]) as X[0]) FCWeight + FCBias): X[1:] hold one row per
    sequence of X[0]; FCOut is their part (without the bias), one row per sequence."""
    op = "fusion_seqexpand_concat_fc"
    ref = x[0]
    offsets = seq_offsets(op, ref, "X[0]")
    n = len(offsets) - 1
    x0 = np.asarray(ref.data)
    widths = [np.asarray(t.data).shape[1] for t in x]
    if sum(widths) != fc_weight.shape[0]:
        raise InvalidArgument(f"{op}: FCWeight must have {sum(widths)} rows (the concatenated "
                              f"width), got {fc_weight.shape[0]}.")
    for i, t in enumerate(x[1:], 1):
        if np.asarray(t.data).shape[0] != n:
            raise InvalidArgument(f"{op}: X[{i}] must hold one row per sequence of X[0] ({n}), "
                                  f"got {np.asarray(t.data).shape[0]}.")
    act = jit_act(op, fc_activation)
    out = x0 @ fc_weight[:widths[0]]
    fc_out = np.zeros((n, fc_weight.shape[1]), x0.dtype)
    start = widths[0]
    for t, w in zip(x[1:], widths[1:], strict=True):
        fc_out = fc_out + np.asarray(t.data) @ fc_weight[start:start + w]
        start += w
    # FCOut keeps the expanded inputs' part only; the bias goes with it into Out
    add = fc_out + fc_bias.reshape(1, -1) if fc_bias is not None else fc_out
    for i, (a, b) in enumerate(pairwise(offsets)):
        out[a:b] += add[i]
    return ctx.lod_tensor(act(out), ref.lod), fc_out
