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

__all__ = ["edit_distance", "hsigmoid_loss", "warpctc"]


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
    codes = _bit_codes(np.asarray(label).reshape(-1), num_classes, path, code)
    t = x.dtype.type
    pre = np.zeros((n, width), x.dtype)
    for i, row in enumerate(codes):
        for j, (idx, _) in enumerate(row):
            if not 0 <= idx < w.shape[0]:
                raise InvalidArgument(f"hsigmoid_loss: the path node {idx} of sample {i} is "
                                      f"out of W's {w.shape[0]} rows.")
            v = t(0) if bias is None else bias.reshape(-1)[idx]
            pre[i, j] = v + w[idx] @ x[i]
    pre = np.clip(pre, t(-40), t(40))
    out = np.array([[-sum(pre[i, j] for j, (_, bit) in enumerate(row) if bit)]
                    for i, row in enumerate(codes)], x.dtype).reshape(n, 1)
    pre = np.log(t(1) + np.exp(pre))
    out = pre.sum(axis=1, keepdims=True) + out
    return out, pre, None
