"""Fluid kernels of the non-sequence_* ops of the sequence / LoD family that Paddle 2.6.2 runs
as STRUCTURE kernels (an empty KernelSignature in their kernel traces): ctc_align, row_conv,
im2sequence, cvm, chunk_eval, tdm_child (paddle/fluid/operators/<op>_op.{cc,h}).

Sequences are one level of LoD offsets on the data input (``ctx.input(slot).lod``); ops with a
padding mode (ctc_align's InputLength, chunk_eval's SeqLength) read [batch, max_len] data and
the lengths instead.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.expected_kernel import expected_fixed, expected_from_var
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument

__all__: list[str] = []


for _op, _slot in (("ctc_align", "Input"), ("row_conv", "X"), ("im2sequence", "X"),
                   ("cvm", "X"), ("tdm_child", "X")):
    op_hooks(_op, get_expected_kernel_type=expected_from_var(_slot))
op_hooks("chunk_eval", get_expected_kernel_type=expected_fixed(DataType.FLOAT32))
# InferShape: ctx->ShareLoD("X", /*->*/ "Out") / ("X", "Y"); the kernels set no LoD
op_hooks("row_conv", share_lod={"Out": "X"})
op_hooks("cvm", share_lod={"Y": "X"})


def _rank(ctx, slot: str, ranks: tuple[int, ...], what: str = "") -> None:
    """InvalidArgument unless input ``slot`` has one of ``ranks`` dimensions."""
    t = ctx.input(slot)
    nd = t.data.ndim if t is not None and t.data is not None else None
    if nd not in ranks:
        raise InvalidArgument(f"{ctx.type}: input `{slot}` must be a {' or '.join(map(str, ranks))}"
                              f"-D tensor{what}, got {nd}-D.")


def _offsets(ctx, slot: str) -> list[int]:
    """The last level of LoD offsets of input ``slot`` (InvalidArgument when it has none)."""
    t = ctx.input(slot)
    lod = getattr(t, "lod", ()) or ()
    if not lod:
        raise InvalidArgument(f"{ctx.type}: input `{slot}` needs a LoD (one level of sequence "
                              f"offsets) when no length input is given, got none.")
    return [int(v) for v in lod[-1]]


# ---- ctc_align -----------------------------------------------------------------------------

def _ctc_merge(tokens, blank: int, merge: bool) -> list:
    """CTC decoding of one sequence: drop blanks and, when ``merge``, repeats of the token
    just before (a blank in between separates repeats)."""
    out, prev = [], -1
    for t in tokens:
        if t != blank and not (merge and t == prev):
            out.append(t)
        prev = t
    return out


@register_fluid_kernel("ctc_align", "CPU", ("int32", "int64"))
class CtcAlignKernel(FluidKernel):
    """Merge repeated tokens and drop blanks per sequence (LoD mode: Output [n, 1] with the new
    LoD, [[-1]] when every sequence is empty; padding mode: [B, T] padded with padding_value
    and OutputLength)."""

    def compute(self, ctx) -> None:
        data = ctx.input_array("Input")
        blank, merge = int(ctx.attr("blank")), bool(ctx.attr("merge_repeated"))
        if ctx.has_input("InputLength"):
            lengths = ctx.input_array("InputLength").reshape(-1)
            out = np.full_like(data, data.dtype.type(ctx.attr("padding_value")))
            out_len = np.zeros((data.shape[0], 1), data.dtype)
            for b in range(data.shape[0]):
                seq = _ctc_merge(data[b, :int(lengths[b])].tolist(), blank, merge)
                out[b, :len(seq)] = seq
                out_len[b, 0] = len(seq)
            ctx.set_output("Output", out)
            ctx.set_output("OutputLength", out_len)
            return
        offsets = _offsets(ctx, "Input")
        flat = data.reshape(-1).tolist()
        tokens, new = [], [0]
        for a, b in pairwise(offsets):
            tokens += _ctc_merge(flat[a:b], blank, merge)
            new.append(len(tokens))
        out = np.array(tokens if tokens else [-1], data.dtype).reshape(-1, 1)
        ctx.set_output("Output", out, lod=(tuple(new),))


# ---- row_conv ------------------------------------------------------------------------------

@register_fluid_kernel("row_conv", "CPU", ("float32",))
class RowConvKernel(FluidKernel):
    """Lookahead convolution: out[k] = sum_w x[k + w] * filter[w] within each sequence (LoD
    offsets, or each [T, D] slice of a [B, T, D] input without LoD)."""

    def compute(self, ctx) -> None:
        _rank(ctx, "X", (2, 3), " ([T, D] with a LoD, or [B, T, D])")
        _rank(ctx, "Filter", (2,), " [future context, D]")
        x, f = ctx.input_array("X"), ctx.input_array("Filter")
        if f.shape[1] != x.shape[-1]:
            raise InvalidArgument(f"row_conv: Filter's width {f.shape[1]} must equal X's last "
                                  f"dimension {x.shape[-1]}.")
        lod = ctx.input("X").lod
        if lod:
            offsets = [int(v) for v in lod[-1]]
            rows = x
        else:
            rows = x.reshape(-1, x.shape[-1])
            t = x.shape[1] if x.ndim == 3 else rows.shape[0]
            offsets = list(range(0, rows.shape[0] + 1, t)) if t else [0]
        out = np.zeros_like(rows)
        for a, b in pairwise(offsets):
            for k in range(a, b):
                acc = np.zeros(rows.shape[1], rows.dtype)
                for w in range(min(f.shape[0], b - k)):
                    acc += rows[k + w] * f[w]
                out[k] = acc
        ctx.set_output("Out", out.reshape(x.shape))


# ---- im2sequence ---------------------------------------------------------------------------

@register_fluid_kernel("im2sequence", "CPU", ("float32",))
class Im2SequenceKernel(FluidKernel):
    """Image patches as sequences: one row (C * kh * kw values) per output position, one
    sequence of out_h * out_w rows per image (paddings [up, left, down, right])."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        if ctx.has_input("Y"):
            raise InvalidArgument("im2sequence: the real-size input Y is not supported "
                                  "(Paddle 2.6.2 finds no kernel for it on CPU either).")
        kh, kw = (int(v) for v in ctx.attr("kernels"))
        sh, sw = (int(v) for v in ctx.attr("strides"))
        up, left, down, right = (int(v) for v in ctx.attr("paddings"))
        n, c, h, w = x.shape
        oh, ow = (h + up + down - kh) // sh + 1, (w + left + right - kw) // sw + 1
        if oh <= 0 or ow <= 0:
            raise InvalidArgument(f"im2sequence: the output size ({oh}, {ow}) from input "
                                  f"({h}, {w}), kernels {[kh, kw]} must be positive.")
        padded = np.pad(x, ((0, 0), (0, 0), (up, down), (left, right)))
        out = np.empty((n, oh, ow, c, kh, kw), x.dtype)
        for i in range(oh):
            for j in range(ow):
                out[:, i, j] = padded[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw]
        lod = (tuple(range(0, n * oh * ow + 1, oh * ow)),)
        ctx.set_output("Out", out.reshape(n * oh * ow, c * kh * kw), lod=lod)


# ---- cvm -----------------------------------------------------------------------------------

@register_fluid_kernel("cvm", "CPU", ("float32", "float64"))
class CvmKernel(FluidKernel):
    """Continuous value model: use_cvm keeps the width with log(show + 1) and
    log(click + 1) - log(show + 1) in the first two columns, else drops those two columns."""

    def compute(self, ctx) -> None:
        _rank(ctx, "X", (2,), " [N, D]")
        x = ctx.input_array("X")
        if x.shape[1] < 2:
            raise InvalidArgument(f"cvm: X needs at least the 2 show / click columns, got width "
                                  f"{x.shape[1]}.")
        if not ctx.attr("use_cvm"):
            ctx.set_output("Y", np.ascontiguousarray(x[:, 2:]))
            return
        y = x.copy()
        one = x.dtype.type(1)
        y[:, 0] = np.log(x[:, 0] + one)
        y[:, 1] = np.log(x[:, 1] + one) - y[:, 0]
        ctx.set_output("Y", y)


# ---- chunk_eval ----------------------------------------------------------------------------

# chunk_scheme -> (num_tag_types, begin, inside, end, single); -1: the scheme has no such tag
_SCHEMES = {"IOB": (2, 0, 1, -1, -1), "IOE": (2, -1, 0, 1, -1), "IOBES": (4, 0, 1, 2, 3),
            "plain": (1, -1, -1, -1, -1)}


def _chunk_end(pt, ptype, t, typ, other, b, i, e, s) -> bool:
    if ptype == other:
        return False
    if typ == other or typ != ptype:
        return True
    if pt in (b, i):
        return t in (b, s)
    return pt in (e, s)


def _chunk_begin(pt, ptype, t, typ, other, b, i, e, s) -> bool:
    if ptype == other:
        return typ != other
    if typ == other:
        return False
    if typ != ptype or t in (b, s):
        return True
    if t in (i, e):
        return pt in (e, s)
    return False


def _segments(labels, num_types: int, scheme) -> list[tuple[int, int, int]]:
    """ChunkEvalKernel::GetSegments: (begin, end, type) of each chunk."""
    ntag, *tags = scheme
    other, out, start, in_chunk, tag, typ = num_types, [], 0, False, -1, num_types
    for k, v in enumerate(labels):
        if v > num_types * ntag:
            raise InvalidArgument(f"chunk_eval: label {v} is out of range (at most "
                                  f"num_chunk_types * num_tag_types = {num_types * ntag}).")
        pt, ptype = tag, typ
        tag, typ = v % ntag, v // ntag
        if in_chunk and _chunk_end(pt, ptype, tag, typ, other, *tags):
            out.append((start, k - 1, ptype))
            in_chunk = False
        if _chunk_begin(pt, ptype, tag, typ, other, *tags):
            start, in_chunk = k, True
    if in_chunk:
        out.append((start, len(labels) - 1, typ))
    return out


@register_fluid_kernel("chunk_eval", "CPU", ("float32",))
class ChunkEvalKernel(FluidKernel):
    """Chunk precision / recall / F1 of Inference against Label over all sequences (IOB, IOE,
    IOBES or plain tags; excluded_chunk_types not counted)."""

    def compute(self, ctx) -> None:
        inf, lab = ctx.input_array("Inference"), ctx.input_array("Label")
        scheme_name = ctx.attr("chunk_scheme")
        if scheme_name not in _SCHEMES:
            raise InvalidArgument(f"chunk_eval: attribute chunk_scheme must be one of "
                                  f"{sorted(_SCHEMES)}, got {scheme_name!r}.")
        scheme, ntypes = _SCHEMES[scheme_name], int(ctx.attr("num_chunk_types"))
        excluded = {int(v) for v in ctx.attr("excluded_chunk_types")}
        if ctx.has_input("SeqLength"):
            lengths = ctx.input_array("SeqLength").reshape(-1).tolist()
            seqs = [(inf[b, :n].tolist(), lab[b, :n].tolist()) for b, n in enumerate(lengths)]
        else:
            fi, fl = inf.reshape(-1).tolist(), lab.reshape(-1).tolist()
            seqs = [(fi[a:b], fl[a:b]) for a, b in pairwise(_offsets(ctx, "Inference"))]
        n_inf = n_lab = n_ok = 0
        for si, sl in seqs:
            o, g = _segments(si, ntypes, scheme), _segments(sl, ntypes, scheme)
            i = j = 0
            while i < len(o) and j < len(g):  # both lists are ordered by end
                n_ok += o[i] == g[j] and o[i][2] not in excluded
                if o[i][1] < g[j][1]:
                    i += 1
                elif o[i][1] > g[j][1]:
                    j += 1
                else:
                    i, j = i + 1, j + 1
            n_lab += sum(s[2] not in excluded for s in g)
            n_inf += sum(s[2] not in excluded for s in o)
        f = np.float32
        p = f(0) if not n_inf else f(n_ok) / f(n_inf)
        r = f(0) if not n_lab else f(n_ok) / f(n_lab)
        f1 = f(0) if not n_ok else f(2) * p * r / (p + r)
        for slot, v, dt in (("Precision", p, f), ("Recall", r, f), ("F1-Score", f1, f),
                            ("NumInferChunks", n_inf, np.int64),
                            ("NumLabelChunks", n_lab, np.int64),
                            ("NumCorrectChunks", n_ok, np.int64)):
            ctx.set_output(slot, np.array([v], dt))


# ---- tdm_child -----------------------------------------------------------------------------

@register_fluid_kernel("tdm_child", "CPU", ("float32", "float64", "int32", "int64"))
class TdmChildKernel(FluidKernel):
    """Children of each tree node from TreeInfo rows [item_id, layer_id, parent_id, children...]
    (zeros for node 0 and leaves) and whether each child is an item (LeafMask)."""

    def compute(self, ctx) -> None:
        x, tree = ctx.input_array("X"), ctx.input_array("TreeInfo")
        k = int(ctx.attr("child_nums"))
        dt = {2: np.int32, 3: np.int64}.get(int(ctx.attr("dtype")))
        if dt is None:
            raise InvalidArgument(f"tdm_child: attribute dtype must be int32 (2) or int64 (3), "
                                  f"got {ctx.attr('dtype')}.")
        ids = x.reshape(-1).astype(np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= tree.shape[0]):
            raise InvalidArgument(f"tdm_child: input id must be in [0, {tree.shape[0]}) (the "
                                  f"rows of TreeInfo), got {ids.tolist()}.")
        child = np.zeros((ids.size, k), dt)
        mask = np.zeros((ids.size, k), dt)
        for n, node in enumerate(ids.tolist()):
            if node == 0 or tree[node, 3] == 0:
                continue
            child[n] = tree[node, 3:3 + k].astype(dt)
            mask[n] = tree[child[n].astype(np.int64), 0] != 0
        shape = (*x.shape, k)
        ctx.set_output("Child", child.reshape(shape))
        ctx.set_output("LeafMask", mask.reshape(shape))


# edit_distance is a phi kernel (phi/kernels/sequence2.py); EditDistanceOp's expected type: FP32
op_hooks("edit_distance", get_expected_kernel_type=expected_fixed(DataType.FLOAT32))


# ---- batch 2: gru_unit, linear_chain_crf, crf_decoding, match_matrix_tensor, GPU-only ops ----

for _op, _slot in (("gru_unit", "Input"), ("linear_chain_crf", "Emission"),
                   ("crf_decoding", "Emission"), ("match_matrix_tensor", "X"),
                   ("batch_fc", "Input"), ("rank_attention", "X")):
    op_hooks(_op, get_expected_kernel_type=expected_from_var(_slot))
# CRFDecodingOp::InferShape: ctx->ShareLoD("Emission", "ViterbiPath")
op_hooks("crf_decoding", share_lod={"ViterbiPath": "Emission"})


# gru_unit's activation enum (GRUUnitOpMaker): identity, sigmoid, tanh, relu (Eigen functors)
_GRU_ACTS = (lambda v: v, lambda v: 1 / (1 + np.exp(-v)), np.tanh, lambda v: np.maximum(v, 0))


@register_fluid_kernel("gru_unit", "CPU", ("float32", "float64"))
class GruUnitKernel(FluidKernel):
    """One GRU step.  Weight's buffer holds the update / reset weights as a [D, 2D] matrix
    followed by the candidate weights as [D, D] (not column blocks of a [D, 3D] matrix)."""

    def compute(self, ctx) -> None:
        for slot in ("Input", "HiddenPrev", "Weight"):
            _rank(ctx, slot, (2,))
        x, hp, w = (ctx.input_array(s) for s in ("Input", "HiddenPrev", "Weight"))
        d = hp.shape[1]
        if ctx.has_input("Bias") and ctx.input_array("Bias").size != 3 * d:
            raise InvalidArgument(f"gru_unit: Bias must hold 3D = {3 * d} values, got "
                                  f"{ctx.input_array('Bias').size}.")
        if x.shape[1] != 3 * d or w.shape != (d, 3 * d):
            raise InvalidArgument(f"gru_unit: Input [B, 3D], HiddenPrev [B, D] and Weight "
                                  f"[D, 3D] disagree: {list(x.shape)}, {list(hp.shape)}, "
                                  f"{list(w.shape)}.")
        act, gate_act = (_GRU_ACTS[int(ctx.attr(a))] for a in ("activation", "gate_activation"))
        flat = w.reshape(-1)
        w_ur, w_c = flat[:2 * d * d].reshape(d, 2 * d), flat[2 * d * d:].reshape(d, d)
        g = x.copy()
        if ctx.has_input("Bias"):
            g = g + ctx.input_array("Bias").reshape(1, -1)
        g[:, :2 * d] = gate_act(g[:, :2 * d] + hp @ w_ur)
        u, r = g[:, :d], g[:, d:2 * d]
        rhp = r * hp
        g[:, 2 * d:] = act(g[:, 2 * d:] + rhp @ w_c)
        c = g[:, 2 * d:]
        h = c + u * (hp - c) if ctx.attr("origin_mode") else u * (c - hp) + hp
        ctx.set_output("Gate", g)
        ctx.set_output("ResetHiddenPrev", rhp)
        ctx.set_output("Hidden", h)


def _crf_ranges(ctx, slot: str, rows_per_seq: int | None):
    """(start, end) rows of each sequence: Length (padding mode, rows_per_seq per sequence) or
    the LoD of ``slot``."""
    if ctx.has_input("Length"):
        lengths = ctx.input_array("Length").reshape(-1).tolist()
        return [(i * rows_per_seq, i * rows_per_seq + int(n)) for i, n in enumerate(lengths)]
    return list(pairwise(_offsets(ctx, slot)))


def _crf_check(ctx, em, w) -> int:
    """Emission [N, D] (LoD) or [B, S, D] (Length), Transition [D + 2, D]: the tag count D."""
    _rank(ctx, "Emission", (3,) if ctx.has_input("Length") else (2,),
          " ([B, S, D] with Length, else [N, D] with a LoD)")
    tags = em.shape[-1]
    if w.shape != (tags + 2, tags):
        raise InvalidArgument(f"{ctx.type}: Transition must be [D + 2, D] = [{tags + 2}, "
                              f"{tags}], got {list(w.shape)}.")
    return tags


def _normalize_l1(v):
    """NormalizeL1: scale a row to sum 1 and return the sum (Paddle refuses a sum <= 0)."""
    s = v.sum()
    if not s > 0:
        raise InvalidArgument("linear_chain_crf: The unnormalized probabilities of all "
                              "possible unfinished sequences must be greater than 0.")
    v *= v.dtype.type(1) / s
    return s


@register_fluid_kernel("linear_chain_crf", "CPU", ("float32", "float64"))
class LinearChainCrfKernel(FluidKernel):
    """Negative log-likelihood of each label sequence under the linear-chain CRF (Transition
    rows: start, end, then tag-to-tag), with Alpha / EmissionExps / TransitionExps as Paddle's
    forward pass leaves them (row-max-shifted exponentials, L1-normalized alphas)."""

    def compute(self, ctx) -> None:
        em, w, lab = (ctx.input_array(s) for s in ("Emission", "Transition", "Label"))
        tags = _crf_check(ctx, em, w)
        if lab.size != em.size // max(tags, 1):
            raise InvalidArgument(f"linear_chain_crf: Label must hold one tag per Emission row "
                                  f"({em.size // max(tags, 1)}), got {lab.size}.")
        x = em.reshape(-1, tags)
        labels = lab.reshape(-1).astype(np.int64)
        ranges = _crf_ranges(ctx, "Label", em.shape[1] if em.ndim == 3 else None)
        row_max = x.max(axis=1, keepdims=True) if x.size else np.zeros((0, 1), x.dtype)
        x_exps = np.exp(x - row_max)
        w_exps = np.exp(w)
        alpha = np.zeros_like(x)
        ll = np.zeros((len(ranges), 1), x.dtype)
        for s, (a, b) in enumerate(ranges):
            if a == b:
                continue  # an empty sequence costs 0
            al = alpha[a:b]
            al[0] = w_exps[0] * x_exps[a]
            v = -row_max[a, 0] - np.log(_normalize_l1(al[0]))
            for k in range(1, b - a):
                al[k] = x_exps[a + k] * (al[k - 1] @ w_exps[2:])
                v -= row_max[a + k, 0] + np.log(_normalize_l1(al[k]))
            v -= np.log((al[-1] * w_exps[1]).sum())
            lb = labels[a:b]
            if lb.max() >= tags or lb.min() < 0:
                raise InvalidArgument(f"linear_chain_crf: An invalid tag label that exceeds "
                                      f"the largest tag number {tags}: {lb.tolist()}.")
            v += w[0, lb[0]] + x[a, lb[0]] + w[1, lb[-1]]
            for k in range(1, b - a):
                v += x[a + k, lb[k]] + w[lb[k - 1] + 2, lb[k]]
            ll[s, 0] = -v
        ctx.set_output("Alpha", alpha.reshape(em.shape))
        ctx.set_output("EmissionExps", x_exps.reshape(em.shape))
        ctx.set_output("TransitionExps", w_exps)
        ctx.set_output("LogLikelihood", ll)


def _viterbi(x, w) -> list[int]:
    """CRFDecoding: the best tag path (first maximum wins ties)."""
    n, tags = x.shape
    alpha = w[0] + x[0]
    track = np.zeros((n, tags), np.int64)
    for k in range(1, n):
        scores = alpha[:, None] + w[2:]  # [from j, to i]
        track[k] = scores.argmax(axis=0)
        alpha = scores.max(axis=0) + x[k]
    best = int((alpha + w[1]).argmax())
    path = [best]
    for k in range(n - 1, 0, -1):
        best = int(track[k, best])
        path.append(best)
    return path[::-1]


@register_fluid_kernel("crf_decoding", "CPU", ("float32", "float64"))
class CrfDecodingKernel(FluidKernel):
    """Viterbi decoding per sequence (int64 tags; 0 in padding); with Label, 1 where the
    decoded tag equals the label and 0 elsewhere."""

    def compute(self, ctx) -> None:
        em, w = ctx.input_array("Emission"), ctx.input_array("Transition")
        tags = _crf_check(ctx, em, w)
        x = em.reshape(-1, tags)
        path = np.zeros(x.shape[0], np.int64)
        padded = ctx.has_input("Length")
        label = ctx.input_array("Label").reshape(-1) if ctx.has_input("Label") else None
        for a, b in _crf_ranges(ctx, "Emission", em.shape[1] if em.ndim == 3 else None):
            if b > a:
                path[a:b] = _viterbi(x[a:b], w)
                if label is not None:  # only a sequence's own rows are compared
                    path[a:b] = label[a:b] == path[a:b]
        ctx.set_output("ViterbiPath", path.reshape(em.shape[:2] if padded else (-1, 1)))


@register_fluid_kernel("match_matrix_tensor", "CPU", ("float32",))
class MatchMatrixTensorKernel(FluidKernel):
    """Out[b] = x_b W_t y_b^T for each channel t, flattened [dim_t, len_x, len_y] per sequence
    pair (Out's LoD), and Tmp = X W as [Nx * dim_t * D, 1]."""

    def compute(self, ctx) -> None:
        _rank(ctx, "X", (2,))
        _rank(ctx, "Y", (2,))
        _rank(ctx, "W", (3,), " [D, dim_t, D]")
        x, y, w = (ctx.input_array(s) for s in ("X", "Y", "W"))
        dim_t = int(ctx.attr("dim_t"))
        dim_in = x.shape[1]
        if w.shape != (dim_in, dim_t, y.shape[1]) or y.shape[1] != dim_in:
            raise InvalidArgument(f"match_matrix_tensor: W must be [{dim_in}, {dim_t}, "
                                  f"{dim_in}] for X {list(x.shape)}, Y {list(y.shape)}, got "
                                  f"{list(w.shape)}.")
        xo, yo = _offsets(ctx, "X"), _offsets(ctx, "Y")
        if len(xo) != len(yo):
            raise InvalidArgument(f"match_matrix_tensor: X and Y must hold as many sequences, "
                                  f"got {len(xo) - 1} and {len(yo) - 1}.")
        tmp = x @ w.reshape(dim_in, dim_t * dim_in)
        parts, new = [], [0]
        for (a, b), (c, d) in zip(pairwise(xo), pairwise(yo), strict=True):
            t = tmp[a:b].reshape(b - a, dim_t, dim_in).transpose(1, 0, 2)
            parts.append((t @ y[c:d].T).reshape(-1))
            new.append(new[-1] + parts[-1].size)
        out = np.concatenate(parts) if parts else np.zeros(0, x.dtype)
        ctx.set_output("Out", out.reshape(-1, 1), lod=(tuple(new),))
        ctx.set_output("Tmp", tmp.reshape(-1, 1))


class _GpuOnly(FluidKernel):
    """Paddle 2.6.2 registers a CPU kernel that refuses to run (GPU only)."""

    message = ""

    def compute(self, ctx) -> None:
        from phi.core.errors import Unimplemented

        raise Unimplemented(self.message)


@register_fluid_kernel("batch_fc", "CPU", ("float32", "float64"))
class BatchFcKernel(_GpuOnly):
    """Refused on CPU, as Paddle does."""

    message = "BatchFC only supports GPU now."


@register_fluid_kernel("rank_attention", "CPU", ("float32", "float64"))
class RankAttentionKernel(_GpuOnly):
    """Refused on CPU, as Paddle does."""

    message = "Rank Attention only supports GPU now."
# warpctc / hierarchical_sigmoid are phi kernels: expected types from Logits / X
op_hooks("warpctc", get_expected_kernel_type=expected_from_var("Logits"))
op_hooks("hierarchical_sigmoid", get_expected_kernel_type=expected_from_var("X"))


# ---- beam_search ---------------------------------------------------------------------------

# BeamSearchOp::GetExpectedKernelType: pre_ids' dtype
op_hooks("beam_search", get_expected_kernel_type=expected_from_var("pre_ids"))


def _beam_insert(top: list, item: tuple, beam_size: int) -> None:
    """BeamSearchFunctor::Insert: keep the beam_size best (score, offset) items, best first; an
    item equal to one already there goes after it."""
    def less(a, b):  # Item::operator<
        return a[2] < b[2] or (a[2] == b[2] and a[0] < b[0])

    if len(top) >= beam_size:
        if less(item, top[beam_size - 1]):
            return
        top.pop()
    k = len(top)
    while k > 0 and less(top[k - 1], item):
        k -= 1
    top.insert(k, item)


@register_fluid_kernel("beam_search", "CPU", ("float32", "float64", "int32", "int64"))
class BeamSearchKernel(FluidKernel):
    """One beam-search step: per source sentence (LoD level ``level`` of scores) the beam_size
    best (prefix, id, score) candidates, finished prefixes (pre_id == end_id) carried with
    their score, sources whose every branch ended pruned; outputs carry the 2-level LoD
    [sources, prefixes]."""

    def compute(self, ctx) -> None:
        scores_t = ctx.input("scores")
        level, beam = int(ctx.attr("level")), int(ctx.attr("beam_size"))
        end_id, accumulated = int(ctx.attr("end_id")), bool(ctx.attr("is_accumulated"))
        from phi.core.lod import to_abs_offset

        lod = [list(map(int, lv)) for lv in to_abs_offset(scores_t.lod)] if scores_t.lod else []
        if len(lod) <= level:
            raise InvalidArgument(f"beam_search: Input(scores) needs a LoD of more than {level} "
                                  f"levels (attribute level), got {len(lod)}.")
        high = lod[level]
        pre_ids = ctx.input_array("pre_ids").reshape(-1).tolist()
        pre_scores = ctx.input_array("pre_scores").reshape(-1).astype(np.float32).tolist()
        sc = scores_t.data.astype(np.float32)
        width = int(np.prod(sc.shape[1:])) if sc.ndim > 1 else 1
        sc = sc.reshape(-1, width)
        ids = ctx.input_array("ids").reshape(-1, width) if ctx.has_input("ids") else None
        per_offset: list[list] = [[] for _ in range(high[-1])]
        for a, b in pairwise(high):
            top: list = []
            for off in range(a, b):
                if pre_ids[off] == end_id:
                    _beam_insert(top, (off, end_id, pre_scores[off]), beam)
                    continue
                for d in range(width):
                    s = sc[off, d] if accumulated else \
                        np.float32(pre_scores[off] + np.float32(np.log(sc[off, d])))
                    _beam_insert(top, (off, int(ids[off, d]) if ids is not None else d,
                                       np.float32(s)), beam)
            for item in top:
                per_offset[item[0]].append(item)
        for a, b in pairwise(high):  # PruneEndBeams
            if all(it[1] == end_id and pre_ids[off] == end_id
                   for off in range(a, b) for it in per_offset[off]):
                for off in range(a, b):
                    per_offset[off] = []
        low, sel_ids, sel_scores, parents = [0], [], [], []
        for off, items in enumerate(per_offset):
            for it in items:
                sel_ids.append(it[1])
                sel_scores.append(it[2])
                parents.append(off)
            low.append(len(sel_ids))
        out_lod = (tuple(high), tuple(low))
        ctx.set_output("selected_ids", np.array(sel_ids, np.int64).reshape(-1, 1), lod=out_lod)
        ctx.set_output("selected_scores", np.array(sel_scores, np.float32).reshape(-1, 1),
                       lod=out_lod)
        ctx.set_output("parent_idx", np.array(parents, np.int32))


# ---- var_conv_2d ---------------------------------------------------------------------------

op_hooks("var_conv_2d", get_expected_kernel_type=expected_from_var("X"))


@register_fluid_kernel("var_conv_2d", "CPU", ("float32",))
class VarConv2dKernel(FluidKernel):
    """Convolution of variable-size images: sample b is a [C, rows, cols] image (rows / cols
    from the LoDs of ROW / COLUMN), windows centred (kernel // 2 before), zero outside; Col is
    its [C * kh * kw, out positions] im2col, Out = W Col, both flattened with per-sample LoD."""

    def compute(self, ctx) -> None:
        x, w = ctx.input_array("X").reshape(-1), ctx.input_array("W")
        xo = _offsets(ctx, "X")
        hs = [b - a for a, b in pairwise(_offsets(ctx, "ROW"))]
        ws = [b - a for a, b in pairwise(_offsets(ctx, "COLUMN"))]
        c_in, c_out = int(ctx.attr("InputChannel")), int(ctx.attr("OutputChannel"))
        kh, kw = int(ctx.attr("KernelH")), int(ctx.attr("KernelW"))
        sh, sw = int(ctx.attr("StrideH")), int(ctx.attr("StrideW"))
        if w.shape != (c_out, c_in * kh * kw):
            raise InvalidArgument(f"var_conv_2d: W must be [OutputChannel, InputChannel * "
                                  f"KernelH * KernelW] = [{c_out}, {c_in * kh * kw}], got "
                                  f"{list(w.shape)}.")
        cols, outs, col_lod, out_lod = [], [], [0], [0]
        for b in range(len(xo) - 1):
            h, wd = hs[b], ws[b]
            oy = (h - 1) // sh + 1 if h else 0
            ox = (wd - 1) // sw + 1 if wd else 0
            col = np.zeros((c_in * kh * kw, oy * ox), x.dtype)
            if h and wd:
                if xo[b + 1] - xo[b] != c_in * h * wd:
                    raise InvalidArgument(f"var_conv_2d: sample {b} holds {xo[b + 1] - xo[b]} "
                                          f"values, expected InputChannel * rows * cols = "
                                          f"{c_in * h * wd}.")
                img = np.pad(x[xo[b]:xo[b + 1]].reshape(c_in, h, wd),
                             ((0, 0), (kh // 2, kh), (kw // 2, kw)))
                for ky in range(kh):
                    for kx in range(kw):
                        patch = img[:, ky:ky + h:sh, kx:kx + wd:sw][:, :oy, :ox]
                        col[np.arange(c_in) * kh * kw + ky * kw + kx] = patch.reshape(c_in, -1)
            cols.append(col.reshape(-1))
            outs.append((w @ col).reshape(-1))
            col_lod.append(col_lod[-1] + col.size)
            out_lod.append(out_lod[-1] + c_out * oy * ox)
        ctx.set_output("Col", np.concatenate(cols).reshape(-1, 1), lod=(tuple(col_lod),))
        ctx.set_output("Out", np.concatenate(outs).reshape(-1, 1), lod=(tuple(out_lod),))
op_hooks("shuffle_batch", get_expected_kernel_type=expected_from_var("X"))


# ---- nce -----------------------------------------------------------------------------------

op_hooks("nce", get_expected_kernel_type=expected_from_var("Input"))


_M64 = (1 << 64) - 1


class _Mt19937_64:
    """std::mt19937_64, the engine of Paddle's samplers (GetCPURandomEngine(seed) for a
    non-zero seed; seed 0 means Paddle's global generator: here fresh entropy)."""

    def __init__(self, seed: int) -> None:
        if seed == 0:
            seed = int(np.random.default_rng().integers(1, 2**63))
        mt = [seed & _M64]
        for i in range(1, 312):
            mt.append((6364136223846793005 * (mt[-1] ^ (mt[-1] >> 62)) + i) & _M64)
        self.mt, self.idx = mt, 312

    def __call__(self) -> int:
        mt = self.mt
        if self.idx >= 312:
            for i in range(312):
                x = (mt[i] & 0xFFFFFFFF80000000) | (mt[(i + 1) % 312] & 0x7FFFFFFF)
                mt[i] = mt[(i + 156) % 312] ^ (x >> 1) ^ (0xB5026F5AA96619E9 if x & 1 else 0)
            self.idx = 0
        x = mt[self.idx]
        self.idx += 1
        x ^= (x >> 29) & 0x5555555555555555
        x ^= (x << 17) & 0x71D67FFFEDA60000
        x ^= (x << 37) & 0xFFF7EEE000000000
        return (x ^ (x >> 43)) & _M64

    def uniform_int(self, hi: int) -> int:
        """std::uniform_int_distribution<int>(0, hi) (libstdc++'s downscaling)."""
        n = hi + 1
        scaling = _M64 // n
        while True:
            r = self()
            if r < n * scaling:
                return r // scaling

    def uniform_real(self) -> float:
        """std::uniform_real_distribution<double>(0, 1): generate_canonical<double, 53>."""
        u = float(self()) / 2.0 ** 64
        return u if u < 1.0 else float(np.nextafter(1.0, 0.0))


def _uniform_sampler(rng_range: int, seed: int):
    """math::UniformSampler(range, seed).Sample: uniform over [0, range]."""
    eng = _Mt19937_64(seed)
    return lambda: eng.uniform_int(rng_range)


def _nce_probability(ctx, sampler: int, n_classes: int):
    """Sampler::Probability as float32 (uniform 1 / n, log-uniform log((v + 2) / (v + 1)) /
    log(n), custom_dist CustomDistProbs[v]) and Sample() on Paddle's mt19937_64 stream."""
    f = np.float32
    seed = int(ctx.attr("seed"))
    rng_range = n_classes - 1
    if sampler == 0:
        return (lambda v: f(1.0 / (rng_range + 1))), _uniform_sampler(rng_range, seed)
    eng = _Mt19937_64(seed)
    if sampler == 1:
        log_range = float(f(np.log(rng_range + 1.0)))  # LogUniformSampler keeps it as float
        return (lambda v: f(np.log((v + 2.0) / (v + 1.0)) / log_range)), \
            (lambda: (int(np.exp(eng.uniform_real() * log_range)) - 1) % rng_range)
    if sampler == 2:
        probs = ctx.input_array("CustomDistProbs").reshape(-1).astype(np.float32)
        alias = ctx.input_array("CustomDistAlias").reshape(-1).tolist()
        alias_p = ctx.input_array("CustomDistAliasProbs").reshape(-1).astype(np.float32)

        def draw() -> int:  # CustomSampler: alias method, -1 = no alias
            index = eng.uniform_int(rng_range)
            p = eng.uniform_real()
            if p > alias_p[index]:
                return int(alias[index]) if alias[index] != -1 else (index + 1) % rng_range
            return index

        return (lambda v: f(probs[v])), draw
    raise InvalidArgument(f"nce: Unsupported sampler type {sampler}: it must be 0 (uniform), "
                          f"1 (log_uniform) or 2 (custom_dist).")


@register_fluid_kernel("nce", "CPU", ("float32", "float64"))
class NceKernel(FluidKernel):
    """Noise-contrastive estimation: per row the true labels and num_neg_samples negatives
    (custom_neg_classes, else sampled), o = sigmoid(x . w[label] + b[label]) (SampleLogits) and
    Cost = weight * sum(-log(o / (o + k p)) for true, -log(k p / (o + k p)) for negatives)."""

    def compute(self, ctx) -> None:
        x, w = ctx.input_array("Input"), ctx.input_array("Weight")
        label = ctx.input_array("Label")
        label = label.reshape(label.shape[0], -1).astype(np.int64)
        n, n_true = label.shape
        n_neg, n_classes = int(ctx.attr("num_neg_samples")), int(ctx.attr("num_total_classes"))
        prob, draw = _nce_probability(ctx, int(ctx.attr("sampler")), n_classes)
        custom = [int(v) for v in (ctx.attr("custom_neg_classes")
                                   if ctx.has_attr("custom_neg_classes") else [])]
        labels = np.empty((n, n_true + n_neg), np.int64)
        labels[:, :n_true] = label
        for i in range(n):
            labels[i, n_true:] = custom[:n_neg] if custom else [draw() for _ in range(n_neg)]
        if labels.size and (labels.min() < 0 or labels.max() >= w.shape[0]):
            raise InvalidArgument(f"nce: sample labels must be in [0, {w.shape[0]}) (the rows "
                                  f"of Weight), got {labels.tolist()}.")
        t = x.dtype.type
        logits = np.zeros(labels.shape, x.dtype)
        if ctx.has_input("Bias"):
            logits += ctx.input_array("Bias").reshape(-1)[labels]
        logits += np.einsum("ik,ijk->ij", x, w[labels])
        logits = t(1) / (t(1) + np.exp(-logits))
        sw = ctx.input_array("SampleWeight").reshape(-1) if ctx.has_input("SampleWeight") \
            else np.ones(n, x.dtype)
        cost = np.zeros((n, 1), x.dtype)
        for i in range(n):
            acc = t(0)
            for j in range(labels.shape[1]):
                o = logits[i, j]
                b = t(prob(int(labels[i, j])) * np.float32(n_neg))
                acc += -np.log(o / (o + b)) if j < n_true else -np.log(b / (o + b))
            cost[i, 0] = acc * t(sw[i])
        ctx.set_output("Cost", cost)
        ctx.set_output("SampleLogits", logits)
        ctx.set_output("SampleLabels", labels)


# ---- tdm_sampler ---------------------------------------------------------------------------

op_hooks("tdm_sampler", get_expected_kernel_type=expected_from_var("X"))


@register_fluid_kernel("tdm_sampler", "CPU", ("float32", "float64", "int32", "int64"))
class TdmSamplerKernel(FluidKernel):
    """Per input id and tree layer: the positive node of its Travel row (label 1, when
    output_positive) then neg_samples_num_list[layer] distinct other nodes of that layer
    (label 0), drawn by Paddle's UniformSampler per layer; a 0 in Travel (padding) gives zeros
    with mask 0."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X").reshape(-1)
        travel, layer = ctx.input_array("Travel"), ctx.input_array("Layer").reshape(-1)
        for slot, a in (("X", x), ("Travel", travel), ("Layer", layer)):
            if a.dtype.kind not in "iu":
                raise InvalidArgument(f"tdm_sampler: Input({slot}) holds the wrong type, it "
                                      f"holds {a.dtype}, but desires to be int32 or int64.")
        if travel.dtype != layer.dtype:
            raise InvalidArgument(f"tdm_sampler: Input(Travel) must holds the same type with "
                                  f"Input(Layer), but Travel holds {travel.dtype}, and Layer "
                                  f"holds {layer.dtype}.")
        negs = [int(v) for v in ctx.attr("neg_samples_num_list")]
        offs = [int(v) for v in ctx.attr("layer_offset_lod")]
        pos_out = bool(ctx.attr("output_positive"))
        dt = {2: np.int32, 3: np.int64}.get(int(ctx.attr("dtype")))
        if dt is None or len(offs) != len(negs) + 1 or travel.ndim != 2 or \
                travel.shape[1] < len(negs) or (offs and offs[-1] > layer.size):
            raise InvalidArgument(f"tdm_sampler: dtype {ctx.attr('dtype')} (int32 2 / int64 3), "
                                  f"layer_offset_lod {offs}, neg_samples_num_list {negs}, "
                                  f"Travel {list(travel.shape)} and Layer [{layer.size}] "
                                  f"disagree.")
        width = sum(n + pos_out for n in negs)
        out, lab = np.zeros((x.size, width), dt), np.zeros((x.size, width), dt)
        mask = np.ones((x.size, width), dt)
        samplers = [_uniform_sampler(offs[li + 1] - offs[li] - 1, int(ctx.attr("seed")))
                    for li in range(len(negs))]
        for i, item in enumerate(x.tolist()):
            if not 0 <= item < travel.shape[0]:
                raise InvalidArgument(f"tdm_sampler: Variable value (input) of OP(tdm_sampler) "
                                      f"expected >= 0 and < {travel.shape[0]}, but got {item}.")
            col = 0
            for li, n in enumerate(negs):
                lo, hi = offs[li], offs[li + 1]
                if n > hi - lo - 1:
                    raise InvalidArgument(f"tdm_sampler: Neg sample nums id of OP(tdm_sampler) "
                                          f"at layer {li} expected <= {hi - lo} - 1 (positive "
                                          f"included), but got {n}.")
                positive = int(travel[item, li])
                k = n + pos_out
                if positive == 0:  # padding
                    mask[i, col:col + k] = 0
                    col += k
                    continue
                if pos_out:
                    out[i, col], lab[i, col] = positive, 1
                    col += 1
                picked: list[int] = []
                for _ in range(n):  # redraw the positive and repeats, as Paddle does
                    j = samplers[li]()
                    while int(layer[lo + j]) == positive or j in picked:
                        j = samplers[li]()
                    picked.append(j)
                    out[i, col] = layer[lo + j]
                    col += 1
        ctx.set_output("Out", out)
        ctx.set_output("Labels", lab)
        ctx.set_output("Mask", mask)
