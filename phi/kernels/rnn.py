"""The rnn kernel: multi-layer, optionally bidirectional LSTM / GRU / simple RNN (Paddle's
paddle/phi/kernels/cpu/rnn_kernel.cc, the kernel of the legacy ``rnn`` op that paddle.nn.LSTM,
GRU and SimpleRNN build in static graphs).

Layout as Paddle's: the input is time-major [T, B, I]; ``weight_list`` holds, for layer l and
direction d (k = l * dirs + d), W_ih at 2k and W_hh at 2k + 1, then the biases in the same
order; ``pre_state`` is [h0] (or [h0, c0] for LSTM), each [layers * dirs, B, H].  Gates are
split as Paddle's cells do: LSTM (i, f, c~, o); GRU (r, z, c~) with the reset gate applied to
the hidden projection, h = (h_prev - c~) * z + c~.  Biases in Paddle's order: the input
projection is (x W_ih^T + b_ih) + b_hh once for all steps (GRU: b_hh's r and z parts only),
then each step adds h W_hh^T; GRU's candidate is tanh(x_c + r * (h W_hc^T + b_hc)).  Steps
past a sequence's length keep the state and output zeros; the backward direction runs over
each sequence's valid prefix.

Two paths give the same values.  The reference path (``_run_direction``, any array namespace)
runs one direction after the other, one step at a time.  The fast path (numpy, float32 /
float64, ``FLAGS_kernel_rnn_fast``, the default) runs a layer's directions together: every
step's input projection in one GEMM per direction, then per step one stacked GEMM of the
recurrent part for all directions and the gate arithmetic in place in preallocated buffers
(about a dozen numpy calls a step, none allocating).  It does not mask each step: a sequence's
steps past its length run on (they never feed a valid step, as the valid steps are a prefix)
and are overwritten afterwards by zeros (outputs) and the state at the sequence's last valid
step (final state).  Each value is computed by the same operations in the same order as the
reference path, so the two agree bit for bit (tests/phi/kernels/test_rnn_speed_paths.py).
"""

from __future__ import annotations

import numpy as np

from phi import flags
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet

__all__ = ["rnn"]


FAST_FLAG = "FLAGS_kernel_rnn_fast"
_FAST_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _sigmoid(xp, v):
    return 1.0 / (1.0 + xp.exp(-v))


def _input_projection(xp, x, w_ih, b_ih, b_fold):
    """Every step's input projection (x W_ih^T + b_ih) + b_fold at once, x [T, B, I] ->
    [T, B, G], as Paddle's kernel makes it: one GEMM over the T * B rows, then the input bias
    and the part of the hidden bias that goes with it (``_folded_bias``).  Both paths call
    this: the same rows give the same bits."""
    steps, batch = x.shape[0], x.shape[1]
    flat = xp.matmul(xp.reshape(x, (steps * batch, x.shape[2])), xp.matrix_transpose(w_ih))
    return (xp.reshape(flat, (steps, batch, w_ih.shape[0])) + b_ih) + b_fold


def _folded_bias(xp, b_hh, mode: str):
    """The hidden bias Paddle adds to the input projection: all of it, but GRU's candidate part
    (zeroed), which is added to the candidate's hidden projection before the reset gate."""
    if mode != "GRU":
        return b_hh
    hidden = b_hh.shape[0] // 3
    return xp.concat([b_hh[:2 * hidden], xp.zeros((hidden,), dtype=b_hh.dtype)])


def _run_direction(xp, x, h, c, w_ih, w_hh, b_ih, b_hh, mode: str, order, mask):
    """The reference path: one layer, one direction; x [T, B, I]; returns (outputs [T, B, H],
    h, c)."""
    hidden = w_hh.shape[1]
    xw = _input_projection(xp, x, w_ih, b_ih, _folded_bias(xp, b_hh, mode))
    w_hh_t = xp.matrix_transpose(w_hh)
    out = xp.zeros((x.shape[0], x.shape[1], hidden), dtype=x.dtype)
    for t in order:
        hw = xp.matmul(h, w_hh_t)
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
            cand = xp.tanh(g[:, 2 * hidden:] + r * (hw[:, 2 * hidden:] + b_hh[2 * hidden:]))
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


# ---- the fast path (numpy) --------------------------------------------------------------------
# ufuncs take their out argument positionally and are bound to local names: each step makes
# about a dozen calls on blocks of a few thousand values, where the call's cost is the time

def _sigmoid_into(x, out) -> None:
    """out = 1 / (1 + exp(-x)) in place, in four numpy calls (the fast path's gate rule)."""
    np.negative(x, out)
    np.exp(out, out)
    np.add(out, 1.0, out)
    np.divide(1.0, out, out)


def _steps_fast(xw, h, c, w_hh_t, b_hc, mode: str, hist, chist):
    """The recurrence of a layer's D directions together: xw [T, D, B, G] (each direction's
    input projection with the folded bias, in its own step order), h / c [D, B, H], w_hh_t
    [D, H, G], b_hc [D, 1, H] (GRU's candidate hidden bias); writes step t's h into hist[t]
    (and c into chist[t]), unmasked."""
    dirs, batch, hh = h.shape
    dtype = hist.dtype
    hw = np.empty((dirs, batch, w_hh_t.shape[2]), dtype)
    act = np.empty_like(hw)
    t1 = np.empty((dirs, batch, hh), dtype)
    t2 = np.empty_like(t1)
    matmul, add, mul, tanh = np.matmul, np.add, np.multiply, np.tanh
    # sigmoid as the reference's _sigmoid, operation for operation: 1 / (1 + exp(-v))
    if mode == "LSTM":  # gates (i, f, c~, o): one sigmoid over all four, c~'s redone as tanh
        a_i, a_f, a_o = act[..., :hh], act[..., hh:2 * hh], act[..., 3 * hh:]
        hw_c = hw[..., 2 * hh:3 * hh]
        for t in range(xw.shape[0]):
            matmul(h, w_hh_t, hw)
            add(xw[t], hw, hw)
            _sigmoid_into(hw, act)
            tanh(hw_c, t1)
            c_new = chist[t]
            mul(a_f, c, c_new)
            mul(a_i, t1, t2)
            add(c_new, t2, c_new)
            tanh(c_new, t1)
            h = hist[t]
            mul(a_o, t1, h)
            c = c_new
    elif mode == "GRU":  # gates (r, z, c~): the reset gate scales c~'s hidden projection
        # the gates' and the candidate's input projections apart, each contiguous per step
        xw_rz, xw_c = np.ascontiguousarray(xw[..., :2 * hh]), np.ascontiguousarray(xw[..., 2 * hh:])
        rz = np.empty((dirs, batch, 2 * hh), dtype)
        r, z = rz[..., :hh], rz[..., hh:]
        hw_rz, hw_c = hw[..., :2 * hh], hw[..., 2 * hh:]
        for t in range(xw.shape[0]):
            matmul(h, w_hh_t, hw)
            add(xw_rz[t], hw_rz, rz)
            _sigmoid_into(rz, rz)
            add(hw_c, b_hc, t1)
            mul(r, t1, t1)
            add(xw_c[t], t1, t1)
            tanh(t1, t1)
            np.subtract(h, t1, t2)
            mul(t2, z, t2)
            h = hist[t]
            add(t2, t1, h)
    else:
        for t in range(xw.shape[0]):
            matmul(h, w_hh_t, hw)
            add(xw[t], hw, hw)
            h = hist[t]
            if mode == "RNN_TANH":
                tanh(hw, h)
            else:
                np.maximum(hw, 0, out=h)


class _Spans:
    """Each sequence's valid steps (lengths within [0, T]), worked out once for every layer:
    ``rev`` [T, B] is _reverse_valid's gather index, ``invalid`` [T, B, 1, 1] the padding of
    the [T, B, D, H] output, ``last`` / ``some`` the step whose state is final / whether any."""

    __slots__ = ("invalid", "last", "rev", "rows", "some")

    def __init__(self, lengths, steps: int):
        t = np.arange(steps)[:, None]
        lens = lengths.reshape(1, -1)
        valid = t < lens
        self.rev = np.where(valid, lens - 1 - t, t)
        self.rows = np.arange(lens.shape[1])
        self.invalid = ~valid[:, :, None, None]
        self.last = np.maximum(lengths - 1, 0)
        self.some = (lengths > 0)[:, None, None]


def _layer_fast(x, h0, c0, params, mode: str, spans: _Spans | None):
    """One layer, its directions stepped together (numpy): x [T, B, I] (T >= 1), h0 / c0
    [D, B, H] (c0 None but for LSTM), params per direction (w_ih, w_hh, b_ih, b_hh), spans
    None without sequence lengths.  Returns (out [T, B, D * H], h [D, B, H], c [D, B, H] or
    None), as the reference path's."""
    steps, batch = x.shape[0], x.shape[1]
    dirs = len(params)
    gates, hidden = params[0][1].shape
    dtype = x.dtype
    xw = np.empty((steps, dirs, batch, gates), dtype)
    for d, (w_ih, _w_hh, b_ih, b_hh) in enumerate(params):
        # _input_projection's operations, the biases added in place, the last into xw
        xd = x if d == 0 or spans is None else x[spans.rev, spans.rows]
        proj = np.matmul(xd.reshape(steps * batch, xd.shape[2]), w_ih.T).reshape(
            steps, batch, gates)
        np.add(proj, b_ih, proj)
        # without lengths the reference projects x as it is and reads it backwards
        np.add(proj, _folded_bias(np, b_hh, mode), xw[::-1, 1] if d and spans is None
               else xw[:, d])
    # W_hh^T as a transposed view, as the reference passes it: BLAS then takes the same path
    # (a contiguous copy of the transpose changes the bits of the sums at H = 64)
    w_hh_t = np.stack([p[1] for p in params]).transpose(0, 2, 1)
    b_hc = np.stack([p[3][2 * hidden:] for p in params])[:, None, :] if mode == "GRU" else None
    hist = np.empty((steps, dirs, batch, hidden), dtype)
    chist = np.empty_like(hist) if mode == "LSTM" else None
    with quiet(np):  # steps past a sequence's length may overflow: they are dropped below
        _steps_fast(xw, h0, c0, w_hh_t, b_hc, mode, hist, chist)
    out = np.empty((steps, batch, dirs, hidden), dtype)
    out[:, :, 0] = hist[:, 0]
    if spans is None:
        if dirs == 2:
            out[:, :, 1] = hist[::-1, 1]
        h_fin = hist[-1].copy()
        c_fin = chist[-1].copy() if chist is not None else None
    else:
        if dirs == 2:  # back to time order: each valid prefix reversed, the padding in place
            out[:, :, 1] = hist[spans.rev, 1, spans.rows]
        np.copyto(out, 0, where=spans.invalid)
        # hist[last, :, rows] is [B, D, H]: each sequence's state after its last valid step
        last, rows, some = spans.last, spans.rows, spans.some
        h_fin = np.where(some, hist[last, :, rows], h0.transpose(1, 0, 2)).transpose(1, 0, 2)
        c_fin = (np.where(some, chist[last, :, rows], c0.transpose(1, 0, 2)).transpose(1, 0, 2)
                 if chist is not None else None)
    return out.reshape(steps, batch, dirs * hidden), h_fin, c_fin


def _reverse_valid(xp, x, lengths):
    """x [T, B, ...] with each sequence's valid prefix reversed (the padding stays)."""
    steps = x.shape[0]
    t = np.arange(steps)[:, None]
    lens = np.asarray(lengths).reshape(1, -1)
    idx = np.where(t < lens, lens - 1 - t, t)  # [T, B]
    b = np.arange(x.shape[1])[None, :]
    return x[idx, b]


def _dropout(xp, v, prob: float, rng, dtype):
    """upscale_in_train between layers; Paddle's random stream is not reproduced."""
    keep = xp.asarray(rng.random(v.shape) >= prob)
    return xp.where(keep, v / (1.0 - prob), 0).astype(dtype)


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
    lengths = None
    if sequence_length is not None:
        lengths = np.asarray(ctx.to_host(sequence_length) if hasattr(ctx, "to_host") else
                             sequence_length).reshape(-1).astype(np.int64)
    dropout = dropout_prob > 0 and not is_test and num_layers > 1
    # made only for dropout (making a generator costs more than a small layer's step)
    rng = np.random.default_rng(seed if seed else None) if dropout else None
    # the fast path: numpy, one float dtype throughout, lengths within [0, T] (others take
    # the reference path and its errors)
    if (xp is np and flags.FLAGS[FAST_FLAG] and steps > 0 and x.shape[1] > 0
            and x.dtype in _FAST_DTYPES
            and all(a.dtype == x.dtype for a in (*weight_list, *pre_state))
            and (lengths is None or (lengths.size == x.shape[1] and lengths.min() >= 0
                                     and lengths.max() <= steps))):
        spans = _Spans(lengths, steps) if lengths is not None else None
        layer_in, hs, cs = x, [], []
        for layer in range(num_layers):
            ks = range(layer * dirs, (layer + 1) * dirs)
            params = [(weights[2 * k], weights[2 * k + 1], biases[2 * k], biases[2 * k + 1])
                      for k in ks]
            layer_in, h, c = _layer_fast(layer_in, h0[ks.start:ks.stop],
                                         None if c0 is None else c0[ks.start:ks.stop],
                                         params, mode, spans)
            hs.append(h)
            cs.append(c)
            if dropout and layer + 1 < num_layers:
                layer_in = _dropout(xp, layer_in, dropout_prob, rng, x.dtype)
        state = [np.concatenate(hs)] + ([np.concatenate(cs)] if mode == "LSTM" else [])
        return (layer_in, np.zeros((0,), dtype=np.uint8), state,
                np.zeros((0,), dtype=x.dtype))
    mask = (xp.asarray(np.arange(steps)[:, None] < lengths[None, :])
            if lengths is not None else None)
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
        if dropout and layer + 1 < num_layers:
            layer_in = _dropout(xp, layer_in, dropout_prob, rng, x.dtype)
    state = [xp.stack(h_final)] + ([xp.stack(c_final)] if mode == "LSTM" else [])
    state = [s.astype(x.dtype) for s in state]
    dropout_state = xp.zeros((0,), dtype=np.uint8)
    reserve = xp.zeros((0,), dtype=x.dtype)
    return layer_in.astype(x.dtype), dropout_state, state, reserve
