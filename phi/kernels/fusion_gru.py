"""The ``fusion_gru`` kernel."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.sequence import jit_act, seq_offsets

__all__ = ["fusion_gru"]


def _gru_step(g, h_prev, wh_ur, wh_c, act_gate, act_cand, first: bool, d: int):
    """The jit GRU step on gate rows g ([k, 3D], changed in place): GRUH1 without a previous
    state, else GRUHtPart1 (reset gate), the candidate GEMM and GRUHtPart2."""
    if first:
        g[:, :d] = act_gate(g[:, :d])
        g[:, 2 * d:] = act_cand(g[:, 2 * d:])
        return g[:, :d] * g[:, 2 * d:]
    g[:, :2 * d] += h_prev @ wh_ur
    g[:, d:2 * d] = act_gate(g[:, d:2 * d])
    rh = h_prev * g[:, d:2 * d]
    g[:, 2 * d:] += rh @ wh_c
    g[:, :d] = act_gate(g[:, :d])
    g[:, 2 * d:] = act_cand(g[:, 2 * d:])
    one = g.dtype.type(1)
    return g[:, :d] * g[:, 2 * d:] + (one - g[:, :d]) * h_prev


@register_kernel("fusion_gru", "CPU", dtypes=["float32", "float64"])
def fusion_gru(ctx, x: LoDTensor, h0: Tensor | None, weight_x: Tensor, weight_h: Tensor,
               bias: Tensor | None, activation: str, gate_activation: str, is_reverse: bool,
               use_seq: bool, origin_mode: bool, use_mkldnn: bool, mkldnn_data_type: str,
               scale_data: float, shift_data: float, scale_weights: list[float],
               force_fp32_output: bool
               ) -> tuple[Tensor, LoDTensor, LoDTensor, LoDTensor, LoDTensor]:
    """X WeightX + Bias then the GRU of the jit kernels (origin_mode is not read on this path),
    one sequence after the other (use_seq) or in sequence2batch order; WeightH's buffer is a
    [D, 2D] gate matrix followed by the [D, D] candidate matrix.  XX / Batched* hold the gate
    values the steps leave in place."""
    op = "fusion_gru"
    data = np.asarray(x.data)
    offsets = seq_offsets(op, x, "X")
    d = weight_h.shape[0]
    if weight_x.shape != (data.shape[1], 3 * d) or weight_h.shape != (d, 3 * d):
        raise InvalidArgument(f"{op}: X [T, M], WeightX [M, 3D] and WeightH [D, 3D] disagree: "
                              f"{list(data.shape)}, {list(weight_x.shape)}, "
                              f"{list(weight_h.shape)}.")
    act_gate, act_cand = jit_act(op, gate_activation), jit_act(op, activation)
    flat = weight_h.reshape(-1)
    wh_ur, wh_c = flat[:2 * d * d].reshape(d, 2 * d), flat[2 * d * d:].reshape(d, d)
    b = bias.reshape(1, -1) if bias is not None else None

    def fc(v):
        r = v @ weight_x
        return r + b if b is not None else r

    n_seq = len(offsets) - 1
    hidden = np.zeros((data.shape[0], d), data.dtype)
    lod = x.lod
    if use_seq:
        xx = fc(data)
        for s, (a, e) in enumerate(pairwise(offsets)):
            rows = range(e - 1, a - 1, -1) if is_reverse else range(a, e)
            h = None if h0 is None else h0[s:s + 1]
            for r in rows:
                h = _gru_step(xx[r:r + 1], h, wh_ur, wh_c, act_gate, act_cand, h is None, d)
                hidden[r] = h[0]
        return None, ctx.lod_tensor(xx, lod), None, None, ctx.lod_tensor(hidden, lod)
    lengths = [e - a for a, e in pairwise(offsets)]
    order = sorted(range(n_seq), key=lambda s: -lengths[s])
    steps = [[offsets[s + 1] - 1 - t if is_reverse else offsets[s] + t
              for s in order if lengths[s] > t] for t in range(max(lengths, default=0))]
    idx = [r for st in steps for r in st]
    starts = [0]
    for st in steps:
        starts.append(starts[-1] + len(st))
    blod = (tuple(starts), tuple(idx), tuple(order))
    if data.shape[1] > 3 * d:
        xx = fc(data)
        batched, xx_out = xx[idx], ctx.lod_tensor(xx, lod)
    else:
        xx = data[idx]
        batched, xx_out = fc(xx), ctx.lod_tensor(xx, blod)
    bout = np.zeros((len(idx), d), data.dtype)
    reordered = None if h0 is None else h0[order]
    prev = reordered
    for _t, (a, e) in enumerate(pairwise(starts)):
        k = e - a
        h_prev = None if prev is None else prev[:k]
        bout[a:e] = _gru_step(batched[a:e], h_prev, wh_ur, wh_c, act_gate, act_cand,
                              h_prev is None, d)
        prev = bout[a:e]
    hidden[idx] = bout
    return (reordered, xx_out, ctx.lod_tensor(batched, blod), ctx.lod_tensor(bout, blod),
            ctx.lod_tensor(hidden, lod))
