"""The rnn kernel: multi-layer, optionally bidirectional LSTM / GRU / simple RNN (Paddle's
paddle/phi/kernels/cpu/rnn_kernel.cc, the kernel of the legacy ``rnn`` op that paddle.nn.LSTM,
GRU and SimpleRNN build in static graphs).

Layout as Paddle's: the input is time-major [T, B, I]; ``weight_list`` holds, for layer l and
direction d (k = l * dirs + d), W_ih at 2k and W_hh at 2k + 1, then the biases in the same
order; ``pre_state`` is [h0] (or [h0, c0] for LSTM), each [layers * dirs, B, H].  Gates are
split as Paddle's cells do: LSTM (i, f, c~, o); GRU (r, z, c~) with the reset gate applied to
the hidden projection, h = (h_prev - c~) * z + c~.  Steps past a sequence's length keep the
state and output zeros; the backward direction runs over each sequence's valid prefix.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["rnn"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _sigmoid(xp, v):
    return 1.0 / (1.0 + xp.exp(-v))


def _run_direction(xp, x, h, c, w_ih, w_hh, b_ih, b_hh, mode: str, order, mask):
    """One layer, one direction; x [T, B, I]; returns (outputs [T, B, H], h, c)."""
    hidden = w_hh.shape[1]
    xw = xp.matmul(x, xp.matrix_transpose(w_ih)) + b_ih  # every step's input projection at once
    w_hh_t = xp.matrix_transpose(w_hh)
    out = xp.zeros((x.shape[0], x.shape[1], hidden), dtype=x.dtype)
    for t in order:
        hw = xp.matmul(h, w_hh_t) + b_hh
        g = xw[t]
        if mode == "LSTM":
            i = _sigmoid(xp, g[:, :hidden] + hw[:, :hidden])
            f = _sigmoid(xp, g[:, hidden:2 * hidden] + hw[:, hidden:2 * hidden])
            cand = xp.tanh(g[:, 2 * hidden:3 * hidden] + hw[:, 2 * hidden:3 * hidden])
            o = _sigmoid(xp, g[:, 3 * hidden:] + hw[:, 3 * hidden:])
            c_new = f * c + i * cand
            h_new = o * xp.tanh(c_new)
        elif mode == "GRU":
            r = _sigmoid(xp, g[:, :hidden] + hw[:, :hidden])
            z = _sigmoid(xp, g[:, hidden:2 * hidden] + hw[:, hidden:2 * hidden])
            cand = xp.tanh(g[:, 2 * hidden:] + r * hw[:, 2 * hidden:])
            h_new = (h - cand) * z + cand
            c_new = c
        else:
            pre = g + hw
            h_new = xp.tanh(pre) if mode == "RNN_TANH" else xp.maximum(pre, 0)
            c_new = c
        if mask is not None:
            m = mask[t][:, None]
            h_new = xp.where(m, h_new, h)
            c_new = xp.where(m, c_new, c) if c is not None else None
            out[t] = xp.where(m, h_new, 0)
        else:
            out[t] = h_new
        h, c = h_new, c_new
    return out, h, c


def _reverse_valid(xp, x, lengths):
    """x [T, B, ...] with each sequence's valid prefix reversed (the padding stays)."""
    steps = x.shape[0]
    t = np.arange(steps)[:, None]
    lens = np.asarray(lengths).reshape(1, -1)
    idx = np.where(t < lens, lens - 1 - t, t)  # [T, B]
    b = np.arange(x.shape[1])[None, :]
    return x[idx, b]


# SequenceLength holds int lengths: its dtype is not the kernel's (ALL_DTYPE)
@register_kernel("rnn", ("CPU", "GPU"), dtypes=["float32", "float64"],
                 input_defs={"sequence_length": {"dtype": DataType.ALL_DTYPE}},
                 output_defs={1: {"dtype": DataType.UINT8}})
def rnn(ctx, x: Tensor, pre_state: list[Tensor], weight_list: list[Tensor],
        sequence_length: Tensor | None, dropout_prob: float, is_bidirec: bool, input_size: int,
        hidden_size: int, num_layers: int, mode: str, seed: int, is_test: bool
        ) -> tuple[Tensor, Tensor, list[Tensor], Tensor]:
    """(Out [T, B, H * dirs], DropoutState, State (final h, and c for LSTM), Reserve)."""
    xp = ctx.xp
    if mode not in _GATES:
        raise InvalidArgument(f"rnn: mode {mode!r} is not one of {sorted(_GATES)}.")
    dirs = 2 if is_bidirec else 1
    n = num_layers * dirs
    if len(weight_list) != 4 * n:
        raise InvalidArgument(f"rnn: WeightList holds {len(weight_list)} tensors, expected "
                              f"{4 * n} for {num_layers} layers x {dirs} directions.")
    weights, biases = weight_list[:2 * n], weight_list[2 * n:]
    h0 = pre_state[0]
    c0 = pre_state[1] if mode == "LSTM" else None
    steps, _batch = x.shape[0], x.shape[1]
    mask = None
    lengths = None
    if sequence_length is not None:
        lengths = np.asarray(ctx.to_host(sequence_length) if hasattr(ctx, "to_host") else
                             sequence_length).reshape(-1).astype(np.int64)
        mask = xp.asarray(np.arange(steps)[:, None] < lengths[None, :])
    rng = np.random.default_rng(seed if seed else None)
    layer_in = x
    h_final, c_final = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            args = (weights[2 * k], weights[2 * k + 1], biases[2 * k], biases[2 * k + 1])
            h = h0[k]
            c = c0[k] if c0 is not None else None
            if d == 0:
                o, h, c = _run_direction(xp, layer_in, h, c, *args, mode, range(steps), mask)
            elif lengths is None:
                o, h, c = _run_direction(xp, layer_in, h, c, *args, mode,
                                         range(steps - 1, -1, -1), None)
            else:
                o, h, c = _run_direction(xp, _reverse_valid(xp, layer_in, lengths), h, c,
                                         *args, mode, range(steps), mask)
                o = _reverse_valid(xp, o, lengths)
            outs.append(o)
            h_final.append(h)
            if c is not None:
                c_final.append(c)
        layer_in = outs[0] if dirs == 1 else xp.concat(outs, axis=-1)
        if dropout_prob > 0 and not is_test and layer + 1 < num_layers:
            # upscale_in_train between layers; Paddle's random stream is not reproduced
            keep = xp.asarray(rng.random(layer_in.shape) >= dropout_prob)
            layer_in = xp.where(keep, layer_in / (1.0 - dropout_prob), 0).astype(x.dtype)
    state = [xp.stack(h_final)] + ([xp.stack(c_final)] if mode == "LSTM" else [])
    state = [s.astype(x.dtype) for s in state]
    dropout_state = xp.zeros((0,), dtype=np.uint8)
    reserve = xp.zeros((0,), dtype=x.dtype)
    return layer_in.astype(x.dtype), dropout_state, state, reserve
