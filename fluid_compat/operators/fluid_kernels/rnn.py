"""The fluid kernels of attention_lstm, fused_embedding_fc_lstm, fusion_lstm, gru, lstm, multi_gru;
the output counts hook of rnn.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.fluid_kernels.funcs import FLOATS, one_level_offsets
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument, Unimplemented
from phi.kernels.funcs import quiet

__all__: list[str] = []


def _rnn_outputs(attrs, inputs) -> dict[str, int]:
    return {"State": len(inputs.get("PreState") or ()) or (2 if attrs.get("mode") == "LSTM"
                                                           else 1)}


# rnn: State has one tensor per PreState tensor (h, and c for LSTM)
op_hooks("rnn", output_counts=_rnn_outputs)


def _sigmoid(v):
    t = v.dtype.type
    # np.clip's bounds as two ufuncs: the same values (NaN stays NaN), without np.clip's
    # Python-level dispatch, which costs more than the arithmetic on a step's rows
    return t(1) / (t(1) + np.exp(-np.minimum(np.maximum(v, t(-40)), t(13))))


def _tanh_detail(v):
    t = v.dtype.type
    return t(2) / (t(1) + np.exp(np.minimum(t(-2) * v, t(40)))) - t(1)


def _tanh_jit(v):
    t = v.dtype.type
    return t(2) * _sigmoid(t(2) * v) - t(1)


def _act(name: str, jit: bool = False):
    table = {"sigmoid": _sigmoid, "tanh": _tanh_jit if jit else _tanh_detail,
             "relu": lambda v: np.maximum(v, v.dtype.type(0)), "identity": lambda v: v}
    if name not in table:
        raise InvalidArgument(f"activation {name!r} is not one of {sorted(table)}.")
    return table[name]


def _batches(offsets, is_reverse: bool):
    """sequence2batch: (sequence order, [rows of each time step]) with sequences sorted by
    length, longest first (stable), and each step's rows in that order."""
    lengths = [b - a for a, b in pairwise(offsets)]
    order = sorted(range(len(lengths)), key=lambda s: -lengths[s])
    steps = []
    for t in range(max(lengths, default=0)):
        live = [s for s in order if lengths[s] > t]
        steps.append([offsets[s + 1] - 1 - t if is_reverse else offsets[s] + t for s in live])
    return order, steps


def _batch_lod(order, steps) -> tuple:
    """The LoD LoDTensor2BatchFunctor gives the batch-ordered outputs: [batch starts,
    seq-to-batch row index, sequence order] (not offsets: Paddle stores them as a LoD)."""
    starts = [0]
    for st in steps:
        starts.append(starts[-1] + len(st))
    return (tuple(starts), tuple(r for st in steps for r in st), tuple(order))


def _init_state(ctx, slot: str, order, n: int, dtype):
    if not ctx.has_input(slot):
        return None
    v = ctx.input_array(slot)
    if v.shape[0] != n:
        raise InvalidArgument(f"{ctx.type}: `{slot}` has {v.shape[0]} rows for {n} sequences.")
    return v[order].astype(dtype)


@register_fluid_kernel("lstm", "CPU", FLOATS)
class LstmKernel(FluidKernel):
    """Gates [c~, i, f, o] = Input + Bias + h_prev W; peepholes W_ic, W_fc, W_oc from Bias."""

    dtype_tied_inputs = ("Input", "Weight", "Bias")

    def compute(self, ctx) -> None:
        x, w, bias = ctx.input_array("Input"), ctx.input_array("Weight"), ctx.input_array("Bias")
        offsets = one_level_offsets(ctx, "Input")
        h = w.shape[0]
        if x.shape[1] != 4 * h or w.shape[1] != 4 * h:
            raise InvalidArgument(f"lstm: Input [T, 4H] and Weight [H, 4H] disagree: "
                                  f"{list(x.shape)}, {list(w.shape)}.")
        peep = ctx.attr("use_peepholes")
        b = bias.reshape(-1)
        if b.size != (7 if peep else 4) * h:
            raise InvalidArgument(f"lstm: Bias must hold {(7 if peep else 4) * h} values "
                                  f"(use_peepholes={peep}), got {b.size}.")
        gate, cand_act, cell_act = (_act(ctx.attr(a)) for a in (
            "gate_activation", "candidate_activation", "cell_activation"))
        order, steps = _batches(offsets, ctx.attr("is_reverse"))
        n = len(offsets) - 1
        h_prev = _init_state(ctx, "H0", order, n, x.dtype)
        c_prev = _init_state(ctx, "C0", order, n, x.dtype)
        zero = np.zeros((n, h), x.dtype)
        wic, wfc, woc = (b[k * h:(k + 1) * h] if peep else zero[0] for k in (4, 5, 6))
        rows_all = [r for rows in steps for r in rows]  # batch order, one step after the other
        batch_gate = np.zeros_like(x)
        batch_act = np.zeros((x.shape[0], h), x.dtype)
        batch_hidden, batch_cell = np.zeros_like(batch_act), np.zeros_like(batch_act)
        # every step's rows with the gate bias in one gather and one add (per step: the same
        # elementwise sums), then per step the recurrent part; i and f activated together
        xb = x[rows_all] + b[:4 * h]
        w_if = np.concatenate([wic, wfc])
        pos = 0
        with quiet(np):
            for rows in steps:
                k = len(rows)
                g = xb[pos:pos + k]
                if h_prev is not None:
                    g = g + h_prev[:k] @ w
                cp = c_prev[:k] if c_prev is not None else zero[:k]
                bg = batch_gate[pos:pos + k]
                bg[:, :h] = cand = cand_act(g[:, :h])
                # [cp * W_ic, cp * W_fc] side by side: the same products as one at a time
                bg[:, h:3 * h] = gate(g[:, h:3 * h] + np.tile(cp, 2) * w_if)
                i, f = bg[:, h:2 * h], bg[:, 2 * h:3 * h]
                c = batch_cell[pos:pos + k]
                np.add(cand * i, cp * f, out=c)
                bg[:, 3 * h:] = o = gate(g[:, 3 * h:] + c * woc)
                atv = batch_act[pos:pos + k]
                atv[...] = cell_act(c)
                hh = batch_hidden[pos:pos + k]
                np.multiply(o, atv, out=hh)
                h_prev, c_prev, pos = hh, c, pos + k
        hidden, cell = np.zeros_like(batch_act), np.zeros_like(batch_act)
        hidden[rows_all], cell[rows_all] = batch_hidden, batch_cell
        lod = (tuple(offsets),)
        ctx.set_output("Hidden", hidden, lod=lod)
        ctx.set_output("Cell", cell, lod=lod)
        ctx.set_output("BatchGate", batch_gate, lod=_batch_lod(order, steps))
        ctx.set_output("BatchCellPreAct", batch_act)


@register_fluid_kernel("gru", "CPU", FLOATS)
class GruKernel(FluidKernel):
    """Gates [u, r, c~] = Input + Bias (+ h_prev W_ur, + (r * h_prev) W_c); Weight's memory is
    W_ur [H, 2H] followed by W_c [H, H].  origin_mode: h = u h_prev + (1 - u) c~."""

    dtype_tied_inputs = ("Input", "Weight", "Bias")

    def compute(self, ctx) -> None:
        x, w = ctx.input_array("Input"), ctx.input_array("Weight")
        offsets = one_level_offsets(ctx, "Input")
        h = w.shape[0]
        if x.shape[1] != 3 * h or w.shape[1] != 3 * h:
            raise InvalidArgument(f"gru: Input [T, 3H] and Weight [H, 3H] disagree: "
                                  f"{list(x.shape)}, {list(w.shape)}.")
        flat = w.reshape(-1)
        w_ur, w_c = flat[:2 * h * h].reshape(h, 2 * h), flat[2 * h * h:].reshape(h, h)
        bias = ctx.input_array("Bias").reshape(-1) if ctx.has_input("Bias") else np.zeros(
            3 * h, x.dtype)
        gate, node = _act(ctx.attr("gate_activation")), _act(ctx.attr("activation"))
        origin = ctx.attr("origin_mode")
        order, steps = _batches(offsets, ctx.attr("is_reverse"))
        h_prev = _init_state(ctx, "H0", order, len(offsets) - 1, x.dtype)
        rows_all = [r for rows in steps for r in rows]  # batch order, one step after the other
        batch_gate = np.zeros_like(x)
        batch_reset = np.zeros((x.shape[0], h), x.dtype)
        batch_hidden = np.zeros((x.shape[0], h), x.dtype)
        # every step's rows with the bias in one gather and one add (per step: the same
        # elementwise sums), then per step the recurrent part, in place; u and r together
        xb = x[rows_all] + bias
        zeros = np.zeros((len(offsets) - 1, h), x.dtype)
        pos = 0
        with quiet(np):
            for rows in steps:
                k = len(rows)
                g = xb[pos:pos + k]
                hp = h_prev[:k] if h_prev is not None else zeros[:k]
                if h_prev is not None:
                    g[:, :2 * h] += hp @ w_ur
                bg = batch_gate[pos:pos + k]
                bg[:, :2 * h] = gate(g[:, :2 * h])
                u, r = bg[:, :h], bg[:, h:2 * h]
                reset = batch_reset[pos:pos + k]
                np.multiply(r, hp, out=reset)
                if h_prev is not None:
                    g[:, 2 * h:] += reset @ w_c
                bg[:, 2 * h:] = c = node(g[:, 2 * h:])
                hh = batch_hidden[pos:pos + k]
                hh[...] = u * hp - u * c + c if origin else hp - u * hp + u * c
                h_prev, pos = hh, pos + k
        hidden = np.zeros((x.shape[0], h), x.dtype)
        hidden[rows_all] = batch_hidden
        blod = _batch_lod(order, steps)
        ctx.set_output("BatchGate", batch_gate, lod=blod)
        ctx.set_output("BatchResetHiddenPrev", batch_reset)
        ctx.set_output("BatchHidden", batch_hidden, lod=blod)
        ctx.set_output("Hidden", hidden, lod=(tuple(offsets),))


class _JitLstm:
    """The jit LSTM step functions (LSTMC1H1, LSTMCtHt) on one gate row [c~, i, f, o], changed
    in place as Paddle's leave it; ``checked`` is the peephole buffer [W_ic c, W_fc c]."""

    def __init__(self, ctx, bias, h: int, dtype) -> None:
        self.gate = _act(ctx.attr("gate_activation"), jit=True)
        self.cand = _act(ctx.attr("candidate_activation"), jit=True)
        self.cell = _act(ctx.attr("cell_activation"), jit=True)
        self.peep = ctx.attr("use_peepholes")
        self.wp = bias.reshape(-1)[4 * h:7 * h] if self.peep else None
        self.d = h
        self.checked = np.zeros((2, h), dtype)

    def c1h1(self, g):
        """The first step without an initial state: (h, c)."""
        d, d2, d3 = self.d, 2 * self.d, 3 * self.d
        g[d:d2] = self.gate(g[d:d2])
        g[:d] = self.cand(g[:d])
        c = g[:d] * g[d:d2]
        if self.peep:
            g[d:d2] = self.wp[d2:] * c
            g[d3:] = g[d:d2] + g[d3:]
        g[d3:] = self.gate(g[d3:])
        g[d2:d3] = self.cell(c)
        return g[d2:d3] * g[d3:], c

    def ctht(self, g, cp):
        """A step on gates that already hold h_prev W_h: (h, c)."""
        d, d2, d3 = self.d, 2 * self.d, 3 * self.d
        if self.peep:
            self.checked[0], self.checked[1] = self.wp[:d] * cp, self.wp[d:d2] * cp
            g[d:d3] = self.gate(self.checked.reshape(-1) + g[d:d3])
        else:
            g[d:] = self.gate(g[d:])
        g[:d] = self.cand(g[:d])
        g[d:d2] = g[:d] * g[d:d2]
        g[d2:d3] = cp * g[d2:d3]
        c = g[d:d2] + g[d2:d3]
        if self.peep:
            g[d:d2] = self.wp[d2:] * c
            g[d3:] = self.gate(g[d:d2] + g[d3:])
        g[d2:d3] = self.cell(c)
        return g[d2:d3] * g[d3:], c


def _init_hc(ctx, n: int, dtype):
    h0 = ctx.input_array("H0").astype(dtype) if ctx.has_input("H0") else None
    c0 = ctx.input_array("C0").astype(dtype) if ctx.has_input("C0") else None
    if h0 is not None and (c0 is None or h0.shape[0] != n or c0.shape[0] != n):
        raise InvalidArgument(f"{ctx.type}: H0 needs C0, both with one row per sequence ({n}).")
    return h0, c0


def _lstm_seq(ctx, xx, wh, step: _JitLstm, offsets, reverse: bool):
    """SeqCompute on XX = X W_x + b, one sequence after the other: (Hidden, Cell)."""
    h = wh.shape[0]
    n = len(offsets) - 1
    h0, c0 = _init_hc(ctx, n, xx.dtype)
    hidden = np.zeros((xx.shape[0], h), xx.dtype)
    cell = np.zeros((xx.shape[0], h), xx.dtype)
    with quiet(np):
        for s in range(n):
            seq = range(offsets[s], offsets[s + 1])
            hp = h0[s] if h0 is not None else None
            cp = c0[s] if c0 is not None else None
            for row in (reversed(seq) if reverse else seq):
                g = xx[row]
                if hp is None:
                    hidden[row], cell[row] = step.c1h1(g)
                else:
                    g += hp @ wh
                    hidden[row], cell[row] = step.ctht(g, cp)
                hp, cp = hidden[row], cell[row]
    return hidden, cell


def _lstm_batch(ctx, batched, wh, step: _JitLstm, order, steps):
    """BatchCompute on gates in sequence2batch order: (BatchedHidden, BatchedCell, ReorderedH0,
    ReorderedC0)."""
    h = wh.shape[0]
    h0, c0 = _init_hc(ctx, len(order), batched.dtype)
    bh = np.zeros((batched.shape[0], h), batched.dtype)
    bc = np.zeros((batched.shape[0], h), batched.dtype)
    rh0 = h0[order] if h0 is not None else None
    rc0 = c0[order] if h0 is not None else None
    pos, first = 0, 0
    with quiet(np):
        if h0 is None:  # every sequence's first step without a state
            for i in range(len(steps[0]) if steps else 0):
                bh[i], bc[i] = step.c1h1(batched[i])
            prev_h, prev_c, pos, first = bh[:len(steps[0])], bc[:len(steps[0])], len(
                steps[0]), 1
        else:
            prev_h, prev_c = rh0, rc0
        for rows in steps[first:]:
            k = len(rows)
            batched[pos:pos + k] += prev_h[:k] @ wh
            for i in range(k):
                bh[pos + i], bc[pos + i] = step.ctht(batched[pos + i], prev_c[i])
            prev_h, prev_c, pos = bh[pos:pos + k], bc[pos:pos + k], pos + k
    return bh, bc, rh0, rc0


class _SeqLstm(FluidKernel):
    xx_batch_lod = True  # fusion_lstm's XX is reordered to batch order (to_batch) with its LoD

    def _check_bias(self, ctx, bias, h: int):
        peep = ctx.attr("use_peepholes")
        if bias.size != (7 if peep else 4) * h:
            raise InvalidArgument(f"{ctx.type}: Bias must hold {(7 if peep else 4) * h} values "
                                  f"(use_peepholes={peep}), got {bias.size}.")

    def seq_outputs(self, ctx, xx, offsets, bias) -> None:
        """SeqCompute: XX changed in place, Hidden / Cell (and CheckedCell)."""
        wh = ctx.input_array("WeightH")
        self._check_bias(ctx, bias, wh.shape[0])
        step = _JitLstm(ctx, bias, wh.shape[0], xx.dtype)
        hidden, cell = _lstm_seq(ctx, xx, wh, step, offsets, ctx.attr("is_reverse"))
        lod = (tuple(offsets),)
        ctx.set_output("Hidden", hidden, lod=lod)
        ctx.set_output("Cell", cell, lod=lod)
        ctx.set_output("XX", xx, lod=lod)
        if step.peep:
            ctx.set_output("CheckedCell", step.checked)

    def batch_outputs(self, ctx, xx, batched, offsets, bias, order, steps) -> None:
        """BatchCompute: the gates ``batched`` in sequence2batch order, changed in place."""
        wh = ctx.input_array("WeightH")
        self._check_bias(ctx, bias, wh.shape[0])
        step = _JitLstm(ctx, bias, wh.shape[0], xx.dtype)
        bh, bc, rh0, rc0 = _lstm_batch(ctx, batched, wh, step, order, steps)
        rows = [r for st in steps for r in st]
        hidden, cell = np.zeros_like(bh), np.zeros_like(bc)
        hidden[rows], cell[rows] = bh, bc
        lod = (tuple(offsets),)
        ctx.set_output("Hidden", hidden, lod=lod)
        ctx.set_output("Cell", cell, lod=lod)
        blod = _batch_lod(order, steps)
        ctx.set_output("XX", xx, lod=blod if self.xx_batch_lod else (tuple(offsets),))
        ctx.set_output("BatchedInput", batched, lod=blod)
        ctx.set_output("BatchedHidden", bh, lod=blod)
        ctx.set_output("BatchedCell", bc, lod=blod)
        if rh0 is not None:
            ctx.set_output("ReorderedH0", rh0)
            ctx.set_output("ReorderedC0", rc0)
        if step.peep:
            ctx.set_output("CheckedCell", step.checked)


@register_fluid_kernel("fusion_lstm", "CPU", FLOATS)
class FusionLstmKernel(_SeqLstm):
    """XX = X W_x + Bias[:4H], then one jit LSTM step per row of each sequence (use_seq, or a
    single sequence); use_seq=false runs the sequence2batch path, where XX is X in batch order
    (or X W_x + b when X is wider than 4H) and BatchedInput the gates."""

    dtype_tied_inputs = ("X", "WeightX", "WeightH", "Bias")

    def compute(self, ctx) -> None:
        x, wx = ctx.input_array("X"), ctx.input_array("WeightX")
        offsets = one_level_offsets(ctx, "X")
        bias = ctx.input_array("Bias").reshape(-1)
        h4, m = wx.shape[1], x.shape[1]

        def fc(v):
            with quiet(np):
                return (v @ wx + bias[:h4]).astype(x.dtype)

        if ctx.attr("use_seq") or len(offsets) == 2:
            self.seq_outputs(ctx, fc(x), offsets, bias)
            return
        order, steps = _batches(offsets, ctx.attr("is_reverse"))
        rows = [r for st in steps for r in st]
        if m > h4:
            xx = fc(x)
            batched = xx[rows]
        else:
            xx = x[rows]
            batched = fc(xx)
        self.batch_outputs(ctx, xx, batched, offsets, bias, order, steps)


@register_fluid_kernel("fused_embedding_fc_lstm", "CPU", FLOATS)
class FusedEmbeddingFcLstmKernel(_SeqLstm):
    """XX = Embeddings[Ids] (the embeddings already hold X W_x + b: Paddle adds no gate bias
    here, Bias serves only for the peepholes), then LSTM one sequence after the other, or in
    sequence2batch order with use_seq=false (XX then stays as looked up)."""

    xx_batch_lod = False  # XX stays in sequence order with the Ids' LoD

    dtype_tied_inputs = ("Embeddings", "WeightH", "Bias")

    def compute(self, ctx) -> None:
        emb = ctx.input_array("Embeddings")
        ids = ctx.input_array("Ids").reshape(-1).astype(np.int64)
        offsets = one_level_offsets(ctx, "Ids")
        if ids.size and (ids.min() < 0 or ids.max() >= emb.shape[0]):
            raise InvalidArgument(f"{ctx.type}: Ids out of range [0, {emb.shape[0]}).")
        bias = ctx.input_array("Bias").reshape(-1)
        xx = emb[ids].astype(emb.dtype)
        if ctx.attr("use_seq") or len(offsets) == 2:
            self.seq_outputs(ctx, xx, offsets, bias)
            return
        order, steps = _batches(offsets, ctx.attr("is_reverse"))
        rows = [r for st in steps for r in st]
        self.batch_outputs(ctx, xx, xx[rows], offsets, bias, order, steps)


@register_fluid_kernel("attention_lstm", "CPU", FLOATS)
class AttentionLstmKernel(FluidKernel):
    """Per step: attention scores relu(X w_x + b + c_prev . w_c) (optionally scaled, biased and
    relu'd again), softmax over the sequence, pooled x = scores^T X_seq, then an LSTM step with
    LSTMWeight [D + M, 4D] (hidden rows first) and gates [f, i, o, c~]."""

    dtype_tied_inputs = ("X", "C0", "AttentionWeight", "LSTMWeight", "LSTMBias")

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        offsets = one_level_offsets(ctx, "X")
        n, m = len(offsets) - 1, x.shape[1]
        w, lb = ctx.input_array("LSTMWeight"), ctx.input_array("LSTMBias").reshape(-1)
        d = w.shape[1] // 4
        aw = ctx.input_array("AttentionWeight").reshape(-1)
        if w.shape[0] != d + m or aw.size != d + m or lb.size != 4 * d:
            raise InvalidArgument(f"{ctx.type}: LSTMWeight [D + M, 4D], AttentionWeight "
                                  f"[D + M, 1] and LSTMBias [1, 4D] disagree with X's width {m}.")
        c0 = ctx.input_array("C0").astype(x.dtype)
        if c0.shape[0] != n:
            raise InvalidArgument(f"{ctx.type}: C0 dims should be {n} x {d}.")
        h0 = ctx.input_array("H0").astype(x.dtype) if ctx.has_input("H0") else None

        def opt(slot):
            return ctx.input_array(slot).reshape(-1)[0] if ctx.has_input(slot) else None

        ab, scalar, scalar_bias = opt("AttentionBias"), opt("AttentionScalar"), opt(
            "AttentionScalarBias")
        gate = _act(ctx.attr("gate_activation"), jit=True)
        cand_act = _act(ctx.attr("candidate_activation"), jit=True)
        cell_act = _act(ctx.attr("cell_activation"), jit=True)
        t = x.dtype.type
        zero = t(0)
        lengths = [b - a for a, b in pairwise(offsets)]
        hidden, cell = np.zeros((x.shape[0], d), x.dtype), np.zeros((x.shape[0], d), x.dtype)
        fc_out = np.zeros((max(lengths, default=0), 1), x.dtype)
        lstm_x, lstm_out = np.zeros((1, m), x.dtype), np.zeros((1, 4 * d), x.dtype)
        with quiet(np):
            atted = x @ aw[:m].reshape(m, 1)
            if ab is not None:
                atted = atted + ab
            for s in range(n):
                a, b = offsets[s], offsets[s + 1]
                cp, hp = c0[s], (h0[s] if h0 is not None else None)
                for row in range(a, b):
                    f = np.maximum(atted[a:b, 0] + np.dot(cp, aw[m:]), zero)
                    if scalar is not None:
                        f = f * scalar
                        f = np.maximum(f + scalar_bias if scalar_bias is not None else f, zero)
                    e = np.exp(f - f.max())
                    f = e * (t(1) / e.sum())
                    fc_out[:b - a, 0] = f
                    lstm_x = (f @ x[a:b]).reshape(1, m)
                    out = (lstm_x @ w[d:])[0]
                    if hp is not None:
                        out = out + hp @ w[:d]
                    out = lb + out
                    out[:3 * d] = gate(out[:3 * d])
                    out[3 * d:] = cand_act(out[3 * d:])
                    out[:d] = out[:d] * cp
                    out[d:2 * d] = out[d:2 * d] * out[3 * d:]
                    c = out[:d] + out[d:2 * d]
                    out[:d] = cell_act(c)
                    hidden[row], cell[row] = out[:d] * out[2 * d:3 * d], c
                    hp, cp = hidden[row], c
                    lstm_out = out.reshape(1, 4 * d)
        lod = (tuple(offsets),)
        ctx.set_output("Hidden", hidden, lod=lod)
        ctx.set_output("Cell", cell, lod=lod)
        ctx.set_output("AttentionedX", atted.astype(x.dtype))
        ctx.set_output("AttentionFCOut", fc_out)
        ctx.set_output("LSTMX", lstm_x.astype(x.dtype))
        ctx.set_output("LSTMOUT", lstm_out.astype(x.dtype))


# multi_gru is a oneDNN kernel only (MKLDNN library): exact sigmoid / tanh, float32 math
@register_fluid_kernel("multi_gru", "CPU", ("float32", "uint8"), library="MKLDNN")
class MultiGruOneDNNKernel(FluidKernel):
    """``layers`` bidirectional GRU layers over each sequence: a forward and a backward GRU
    (gates [u, r, c~], WeightH's memory W_ur [H, 2H] then W_c [H, H]) whose outputs are
    concatenated [T, 2H] and feed the next layer; WeightX / WeightH / Bias hold forward then
    backward of each layer in turn."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        if x.dtype != np.float32:
            raise Unimplemented(f"{ctx.type}: the quantized (uint8) oneDNN GRU is not "
                                "implemented here.")
        offsets = one_level_offsets(ctx, "X")
        layers = ctx.attr("layers")
        wxs, whs = ctx.multi_input("WeightX"), ctx.multi_input("WeightH")
        biases = ctx.multi_input("Bias") if ctx.has_input("Bias") else []
        if len(wxs) != 2 * layers or len(whs) != 2 * layers or (
                biases and len(biases) != 2 * layers):
            raise InvalidArgument(f"{ctx.type}: WeightX, WeightH (and Bias) must hold 2 * layers "
                                  f"({2 * layers}) tensors, got {len(wxs)}, {len(whs)}, "
                                  f"{len(biases)}.")
        gate, node = _act_exact(ctx.attr("gate_activation")), _act_exact(ctx.attr("activation"))
        origin = ctx.attr("origin_mode")
        h_in = x
        with quiet(np):
            for k in range(0, 2 * layers, 2):
                outs = []
                for d in (0, 1):
                    wx, wh = wxs[k + d].data, whs[k + d].data
                    h = wh.shape[0]
                    flat = wh.reshape(-1)
                    w_ur, w_c = flat[:2 * h * h].reshape(h, 2 * h), flat[2 * h * h:].reshape(h, h)
                    g_all = h_in @ wx
                    if biases:
                        g_all = g_all + biases[k + d].data.reshape(-1)
                    out = np.zeros((x.shape[0], h), np.float32)
                    for a, b in pairwise(offsets):
                        rows = range(b - 1, a - 1, -1) if d else range(a, b)
                        hp = np.zeros(h, np.float32)
                        for row in rows:
                            g = g_all[row].copy()
                            g[:2 * h] += hp @ w_ur
                            u, r = gate(g[:h]), gate(g[h:2 * h])
                            c = node(g[2 * h:] + (r * hp) @ w_c)
                            hp = u * hp + (1 - u) * c if origin else hp - u * hp + u * c
                            out[row] = hp
                    outs.append(out)
                h_in = np.concatenate(outs, axis=1).astype(np.float32)
        ctx.set_output("Hidden", h_in, lod=(tuple(offsets),))


def _act_exact(name: str):
    table = {"sigmoid": lambda v: 1 / (1 + np.exp(-v)), "tanh": np.tanh,
             "relu": lambda v: np.maximum(v, v.dtype.type(0)), "identity": lambda v: v}
    if name not in table:
        raise InvalidArgument(f"activation {name!r} is not one of {sorted(table)}.")
    return table[name]

