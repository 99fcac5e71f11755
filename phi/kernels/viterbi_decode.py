"""The ``viterbi_decode`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet

__all__ = ["viterbi_decode"]


@register_kernel("viterbi_decode", ("CPU",), dtypes=["float32", "float64"],
                 input_defs={"length": {"dtype": DataType.ALL_DTYPE}},
                 output_defs={1: {"dtype": DataType.INT64}})
def viterbi_decode(ctx, input: Tensor, transition: Tensor, length: Tensor,
                   include_bos_eos_tag: bool) -> tuple[Tensor, Tensor]:
    """(Scores [B], Path [B, max(Length)] int64)."""
    x = np.asarray(ctx.to_host(input))
    trans = np.asarray(ctx.to_host(transition))
    left = np.asarray(ctx.to_host(length)).reshape(-1).astype(np.int64)
    batch, seq_len, n = x.shape
    if left.size != batch:
        raise InvalidArgument(f"viterbi_decode: Length holds {left.size} values for a batch of "
                              f"{batch}.")
    max_len = int(left.max()) if left.size else 0
    if max_len < 1 or max_len > seq_len:
        raise InvalidArgument(f"viterbi_decode: the longest Length ({max_len}) must be in "
                              f"[1, {seq_len}] (Input's sequence length).")
    t = x.dtype.type
    stop, start = trans[n - 2], trans[n - 1]
    with quiet(np):
        if include_bos_eos_tag:
            alpha = x[:, 0] + start[None, :]
            alpha = alpha + stop[None, :] * (left == 1).astype(x.dtype)[:, None]
        else:
            alpha = x[:, 0].copy()
        left = left - 1
        history = []
        for i in range(1, max_len):
            total = alpha[:, :, None] + trans[None]  # [B, from, to]
            idx = np.full((batch, n), -1, np.int64)
            best = np.full((batch, n), np.finfo(x.dtype).min, x.dtype)
            for j in range(n):  # Argmax over `from`, strict '>' as Paddle's loop
                better = total[:, j, :] > best
                best = np.where(better, total[:, j, :], best)
                idx = np.where(better, j, idx)
            history.append(idx)
            nxt = best + x[:, i]
            mask = (left > 0).astype(x.dtype)[:, None]
            alpha = alpha * (t(1) - mask) + nxt * mask
            if include_bos_eos_tag:
                alpha = alpha + stop[None, :] * (left == 1).astype(x.dtype)[:, None]
            left = left - 1
    last = np.full(batch, -1, np.int64)
    scores = np.full(batch, np.finfo(x.dtype).min, x.dtype)
    for j in range(n):
        better = alpha[:, j] > scores
        scores = np.where(better, alpha[:, j], scores)
        last = np.where(better, j, last)
    path = np.zeros((max_len, batch), np.int64)
    path[max_len - 1] = last * (left >= 0)
    offset = np.arange(batch, dtype=np.int64) * n
    for k, hist in enumerate(reversed(history)):
        left = left + 1
        upd = hist.reshape(-1)[np.clip(offset + last, 0, batch * n - 1)] * (left > 0)
        zero = (left == 0).astype(np.int64)
        upd = upd * (1 - zero) + last * zero
        last = last * (left < 0) + upd
        path[max_len - 2 - k] = upd
    return ctx.from_host(scores), ctx.from_host(np.ascontiguousarray(path.T))
