"""Phi kernels of the non-sequence_* ops of the sequence / LoD family that Paddle 2.6.2 runs as
real phi kernels (LoDTensor arguments where they read a LoD): edit_distance, warpctc,
hsigmoid_loss (paddle/phi/kernels/cpu/<op>_kernel.cc, impl/warpctc_kernel_impl.h)."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel

__all__ = ["edit_distance", "fusion_gru", "fusion_seqconv_eltadd_relu",
           "fusion_seqexpand_concat_fc", "hsigmoid_loss", "shuffle_batch", "warpctc"]


def _levenshtein(h: list, r: list) -> float:
    """Edit distance with unit insert / delete / substitute costs."""
    if not h or not r:
        return float(len(h) or len(r))
    prev = list(range(len(r) + 1))
    for i, a in enumerate(h, 1):
        cur = [i]
        for j, b in enumerate(r, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a != b)))
        prev = cur
    return float(prev[-1])


_ANY = {"dtype": DataType.ALL_DTYPE}


# Paddle declares the inputs float32 but reads them as int64 and never casts (no transform for
# integer inputs in PrepareData): here they keep their dtype
@register_kernel("edit_distance", "CPU", dtypes=["float32"],
                 input_defs={n: _ANY for n in ("hyps", "refs", "hypslength", "refslength")},
                 output_defs={0: {"dtype": DataType.INT64}})
def edit_distance(ctx, hyps: LoDTensor, refs: LoDTensor, hypslength: Tensor | None,
                  refslength: Tensor | None, normalized: bool) -> tuple[Tensor, Tensor]:
    """Levenshtein distance of each hypothesis / reference pair (LoD sequences, or padded rows
    with HypsLength / RefsLength), divided by the reference length when ``normalized``."""
    hd, rd = np.asarray(hyps.data), np.asarray(refs.data)
    if hypslength is not None and refslength is not None:
        hl, rl = np.asarray(hypslength).reshape(-1), np.asarray(refslength).reshape(-1)
        pairs = [(hd[b, :int(hl[b])].tolist(), rd[b, :int(rl[b])].tolist())
                 for b in range(hl.size)]
    else:
        if not hyps.lod or not refs.lod:
            raise InvalidArgument("edit_distance: Input(Hyps) and Input(Refs) need a LoD when "
                                  "HypsLength and RefsLength are not given.")
        ho, ro = [int(v) for v in hyps.lod[-1]], [int(v) for v in refs.lod[-1]]
        if len(ho) != len(ro):
            raise InvalidArgument(f"edit_distance: Got different number of sequence in Hyps "
                                  f"({len(ho) - 1}) and Refs ({len(ro) - 1}).")
        for i, (a, b) in enumerate(pairwise(ro), 1):
            if b <= a:
                raise InvalidArgument(f"edit_distance: Reference string {i} is empty.")
        hf, rf = hd.reshape(-1).tolist(), rd.reshape(-1).tolist()
        pairs = [(hf[a:b], rf[c:d]) for (a, b), (c, d) in zip(pairwise(ho), pairwise(ro),
                                                               strict=True)]
    out = np.empty((len(pairs), 1), np.float32)
    for k, (h, r) in enumerate(pairs):
        d = np.float32(_levenshtein(h, r))
        # normalized: distance / |ref| in float (an empty padded reference gives inf / nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[k, 0] = d / np.float32(len(r)) if normalized else d
    return np.array([len(pairs)], np.int64), out


# ---- warpctc ---------------------------------------------------------------------------------

def _ctc_one(logits: np.ndarray, label: list, blank: int) -> tuple[float, np.ndarray]:
    """CTC loss -log p(label | logits) and its gradient w.r.t. the unnormalized logits
    (softmax(logits) - posterior of each class), computed in float64 as warp-ctc's CPU path
    does in log space."""
    t_len, _ = logits.shape
    repeats = sum(a == b for a, b in pairwise(label))
    if len(label) + repeats > t_len:  # warp-ctc: no alignment fits, cost 0 and no gradient
        return 0.0, np.zeros(logits.shape, np.float64)
    z = logits.astype(np.float64)
    logp = z - z.max(axis=1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
    ext = [blank]
    for c in label:
        ext += [c, blank]
    s_len = len(ext)
    neg = -np.inf
    la = np.full((t_len, s_len), neg)
    lb = np.full((t_len, s_len), neg)
    la[0, 0] = logp[0, blank]
    if s_len > 1:
        la[0, 1] = logp[0, ext[1]]
    skip = [s >= 2 and ext[s] != blank and ext[s] != ext[s - 2] for s in range(s_len)]
    for t in range(1, t_len):
        for s in range(s_len):
            terms = [la[t - 1, s]] + ([la[t - 1, s - 1]] if s else []) + \
                ([la[t - 1, s - 2]] if skip[s] else [])
            la[t, s] = np.logaddexp.reduce(terms) + logp[t, ext[s]]
    lb[-1, -1] = logp[-1, ext[-1]]
    if s_len > 1:
        lb[-1, -2] = logp[-1, ext[-2]]
    for t in range(t_len - 2, -1, -1):
        for s in range(s_len):
            terms = [lb[t + 1, s]] + ([lb[t + 1, s + 1]] if s + 1 < s_len else []) + \
                ([lb[t + 1, s + 2]] if s + 2 < s_len and skip[s + 2] else [])
            lb[t, s] = np.logaddexp.reduce(terms) + logp[t, ext[s]]
    ll = np.logaddexp.reduce([la[-1, -1], la[-1, -2]] if s_len > 1 else [la[-1, -1]])
    grad = np.exp(logp)
    if not np.isfinite(ll):
        return float("inf"), np.zeros_like(grad)
    post = np.full_like(grad, neg)
    ab = la + lb
    for s, c in enumerate(ext):
        post[:, c] = np.logaddexp(post[:, c], ab[:, s])
    grad -= np.exp(post - logp - ll)
    return float(-ll), grad


_ANY2 = {n: _ANY for n in ("label", "logits_length", "labels_length")}


@register_kernel("warpctc", "CPU", dtypes=["float32", "float64"], input_defs=_ANY2)
def warpctc(ctx, logits: LoDTensor, label: LoDTensor, logits_length: Tensor | None,
            labels_length: Tensor | None, blank: int, norm_by_times: bool
            ) -> tuple[Tensor, Tensor]:
    """CTC loss per sequence ([B, 1]) and WarpCTCGrad, the loss's gradient w.r.t. the logits
    as padded [T_max, B, C] (norm_by_times only scales the gradient in the backward op)."""
    x, lab = np.asarray(logits.data), np.asarray(label.data)
    if logits_length is not None and labels_length is not None:
        tl = np.asarray(logits_length).reshape(-1).tolist()
        ll = np.asarray(labels_length).reshape(-1).tolist()
        seqs = [(x[:int(tl[b]), b], lab[b, :int(ll[b])].reshape(-1).tolist())
                for b in range(len(tl))]
        t_max, width = x.shape[0], x.shape[2]
    else:
        if not logits.lod or not label.lod:
            raise InvalidArgument("warpctc: Input(Logits) and Input(Label) need a LoD when "
                                  "LogitsLength and LabelLength are not given.")
        xo, yo = [int(v) for v in logits.lod[-1]], [int(v) for v in label.lod[-1]]
        if len(xo) != len(yo):
            raise InvalidArgument(f"warpctc: The number of sequences of Input(Logits) "
                                  f"({len(xo) - 1}) and Input(Label) ({len(yo) - 1}) differ.")
        flat = lab.reshape(-1).tolist()
        seqs = [(x[a:b], flat[c:d]) for (a, b), (c, d) in zip(pairwise(xo), pairwise(yo),
                                                              strict=True)]
        t_max = max((b - a for a, b in pairwise(xo)), default=0)
        width = x.shape[-1]
    if not 0 <= blank < width:
        raise InvalidArgument(f"warpctc: Attr(blank) should be in interval [0, {width}), "
                              f"but received {blank}.")
    loss = np.zeros((len(seqs), 1), x.dtype)
    grad = np.zeros((t_max, len(seqs), width), x.dtype)
    for b, (z, lb) in enumerate(seqs):
        if z.shape[0] == 0:
            continue
        cost, g = _ctc_one(z, lb, blank)
        loss[b, 0] = cost
        grad[:z.shape[0], b] = g
    return loss, grad


# ---- hsigmoid_loss ---------------------------------------------------------------------------

def _bit_codes(label, num_classes: int, path, code) -> list[list[tuple[int, int]]]:
    """MatrixBitCodeFunctor: per sample, (weight row, bit) of each node on its path (SimpleCode:
    the heap path of label + num_classes; CustomCode: the sample's PathTable / PathCode row up
    to its first negative entry)."""
    out = []
    for i, c in enumerate(label.tolist()):
        if path is None:
            v = int(c) + num_classes
            out.append([((v >> (j + 1)) - 1, (v >> j) & 1) for j in range(v.bit_length() - 1)])
        else:
            row = []
            for idx, bit in zip(path[i].tolist(), code[i].tolist(), strict=True):
                if idx < 0:
                    break
                row.append((int(idx), int(bit)))
            out.append(row)
    return out


_HS_ANY = {n: _ANY for n in ("label", "path", "code")}


@register_kernel("hsigmoid_loss", "CPU", dtypes=["float32", "float64"], input_defs=_HS_ANY)
def hsigmoid_loss(ctx, x: Tensor, label: Tensor, w: Tensor, bias: Tensor | None,
                  path: Tensor | None, code: Tensor | None, num_classes: int, is_sparse: bool
                  ) -> tuple[Tensor, Tensor, Tensor]:
    """Hierarchical sigmoid loss; PreOut holds softrelu(clip(w x + b, -40, 40)) with 0 before
    the softrelu past each path's end, whose log(2) Paddle keeps in the loss."""
    n = x.shape[0]
    width = path.shape[1] if path is not None else (num_classes - 1).bit_length()
    if np.size(label) != n:
        raise InvalidArgument(f"hsigmoid_loss: Label must hold one class per row of X ({n}), "
                              f"got {np.size(label)}.")
    codes = _bit_codes(np.asarray(label).reshape(-1), num_classes, path, code)
    t = x.dtype.type
    pre = np.zeros((n, width), x.dtype)
    for i, row in enumerate(codes):
        for j, (idx, _) in enumerate(row):
            if not 0 <= idx < w.shape[0]:
                raise InvalidArgument(f"hsigmoid_loss: the path node {idx} of sample {i} is "
                                      f"out of W's {w.shape[0]} rows.")
            if bias is not None and idx >= bias.size:
                raise InvalidArgument(f"hsigmoid_loss: the path node {idx} of sample {i} is "
                                      f"out of Bias's {bias.size} values.")
            v = t(0) if bias is None else bias.reshape(-1)[idx]
            pre[i, j] = v + w[idx] @ x[i]
    pre = np.clip(pre, t(-40), t(40))
    out = np.array([[-sum(pre[i, j] for j, (_, bit) in enumerate(row) if bit)]
                    for i, row in enumerate(codes)], x.dtype).reshape(n, 1)
    pre = np.log(t(1) + np.exp(pre))
    out = pre.sum(axis=1, keepdims=True) + out
    return out, pre, None


# ---- issue 11's LoD fusion ops -----------------------------------------------------------------

def _jit_sigmoid(v):
    t = v.dtype.type
    return t(1) / (t(1) + np.exp(-np.clip(v, t(-40), t(13))))


# Paddle's CPU vector activations (jit refer / VecActivations): sigmoid clips its input to
# [-40, 13], tanh is 2 * sigmoid(2x) - 1
def _jit_tanh(v):
    t = v.dtype.type
    return t(2) * _jit_sigmoid(t(2) * v) - t(1)


_JIT_ACTS = {"sigmoid": _jit_sigmoid, "tanh": _jit_tanh,
             "relu": lambda v: np.maximum(v, v.dtype.type(0)), "identity": lambda v: v}


def _jit_act(op: str, name: str):
    if name not in _JIT_ACTS:
        raise InvalidArgument(f"{op}: activation {name!r} is not one of {sorted(_JIT_ACTS)}.")
    return _JIT_ACTS[name]


def _seq_offsets(op: str, t: LoDTensor, slot: str) -> list[int]:
    if len(t.lod) != 1:
        raise InvalidArgument(f"{op}: Only support input lod size is 1, but received value is: "
                              f"{len(t.lod)} (input {slot}).")
    return [int(v) for v in t.lod[0]]


@register_kernel("fusion_seqexpand_concat_fc", "CPU", dtypes=["float32", "float64"])
def fusion_seqexpand_concat_fc(ctx, x: list[LoDTensor], fc_weight: Tensor,
                               fc_bias: Tensor | None, fc_activation: str
                               ) -> tuple[LoDTensor, Tensor]:
    """act(concat(X[0], expand(X[1:]) as X[0]) FCWeight + FCBias): X[1:] hold one row per
    sequence of X[0]; FCOut is their part (without the bias), one row per sequence."""
    op = "fusion_seqexpand_concat_fc"
    ref = x[0]
    offsets = _seq_offsets(op, ref, "X[0]")
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
    act = _jit_act(op, fc_activation)
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


@register_kernel("fusion_seqconv_eltadd_relu", "CPU", dtypes=["float32", "float64"])
def fusion_seqconv_eltadd_relu(ctx, x: LoDTensor, filter: Tensor, bias: Tensor,
                               context_length: int, context_start: int, context_stride: int
                               ) -> tuple[LoDTensor, Tensor]:
    """relu(sequence_conv(X) + Bias): ColMat row j holds the contextLength rows of X from
    j + contextStart on (zeros outside j's sequence), Out = ColMat Filter + Bias."""
    op = "fusion_seqconv_eltadd_relu"
    if context_stride != 1:
        raise InvalidArgument(f"{op}: Currently, FusionSeqConvEltAddReluOp only supports "
                              f"contextStride=1, but received value is: {context_stride}.")
    data = np.asarray(x.data)
    offsets = _seq_offsets(op, x, "X")
    m = data.shape[1]
    if filter.shape[0] != context_length * m:
        raise InvalidArgument(f"{op}: Filter's height should be context_length * input width "
                              f"({context_length * m}), got {filter.shape[0]}.")
    col = np.zeros((data.shape[0], context_length * m), data.dtype)
    for a, b in pairwise(offsets):
        for j in range(a, b):
            for k in range(context_length):
                r = j + context_start + k
                if a <= r < b:
                    col[j, k * m:(k + 1) * m] = data[r]
    out = col @ filter + bias.reshape(1, -1)
    return ctx.lod_tensor(np.maximum(out, out.dtype.type(0)), x.lod), col


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
    offsets = _seq_offsets(op, x, "X")
    d = weight_h.shape[0]
    if weight_x.shape != (data.shape[1], 3 * d) or weight_h.shape != (d, 3 * d):
        raise InvalidArgument(f"{op}: X [T, M], WeightX [M, 3D] and WeightH [D, 3D] disagree: "
                              f"{list(data.shape)}, {list(weight_x.shape)}, "
                              f"{list(weight_h.shape)}.")
    act_gate, act_cand = _jit_act(op, gate_activation), _jit_act(op, activation)
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


# ---- shuffle_batch -----------------------------------------------------------------------------

_MINSTD_M = 2147483647  # std::minstd_rand0 (libstdc++'s default_random_engine)


@register_kernel("shuffle_batch", "CPU", dtypes=["float32", "float64", "int32", "int64"],
                 input_defs={"seed": _ANY},
                 output_defs={1: {"dtype": DataType.INT64}, 2: {"dtype": DataType.INT64}})
def shuffle_batch(ctx, x: Tensor, seed: Tensor, startup_seed: int
                  ) -> tuple[Tensor, Tensor, Tensor]:
    """Rows (all dims but the last) in a random order.  Paddle draws the permutation from a
    std::random_device-seeded engine, so no run repeats it: here fresh entropy too.  SeedOut is
    the first draw of default_random_engine seeded with Seed (startup_seed without one)."""
    s = int(np.asarray(seed).reshape(-1)[0]) if seed is not None and np.size(seed) else \
        int(startup_seed)
    state = s % _MINSTD_M or 1  # linear_congruential_engine::seed
    seed_out = np.array([state * 16807 % _MINSTD_M], np.int64)
    rows = int(np.prod(x.shape[:-1])) if x.ndim > 1 else 1
    idx = np.random.default_rng().permutation(rows).astype(np.int64)
    out = x.copy()
    if x.size:  # Paddle copies row i of X to row ShuffleIdx[i] of Out
        out.reshape(rows, -1)[idx] = x.reshape(rows, -1)
    return out, idx, seed_out
