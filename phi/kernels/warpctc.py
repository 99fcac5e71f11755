"""The ``warpctc`` and ``warpctc_grad`` kernels."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet

__all__ = ["warpctc"]


_ANY = {"dtype": DataType.ALL_DTYPE}


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


@register_kernel("warpctc_grad", "CPU", dtypes=["float32", "float64"],
                 input_defs={"logits_length": _ANY})
def warpctc_grad(ctx, logits: LoDTensor, logits_length: Tensor | None, warpctcgrad: Tensor,
                 loss_grad: Tensor, blank: int, norm_by_times: bool) -> LoDTensor:
    """WarpCTCGrad ([T_max, B, C]) times each sequence's Loss@GRAD, / its length with
    ``norm_by_times``; unpadded back to Logits' LoD rows when Logits is a LoD tensor."""
    g = np.asarray(warpctcgrad)
    dloss = np.asarray(loss_grad).reshape(-1)
    t = g.dtype.type
    with quiet(np):
        if logits_length is not None:
            lengths = np.asarray(logits_length).reshape(-1)
            out = g * dloss.reshape(1, -1, 1)
            if norm_by_times:
                out = out / lengths.astype(g.dtype).reshape(1, -1, 1)
            return ctx.lod_tensor(out.astype(g.dtype), logits.lod)
        level = logits.lod[-1]
        out = np.zeros(np.shape(logits.data), g.dtype)
        for b, (a, e) in enumerate(pairwise(level)):
            seq = g[:e - a, b]
            if norm_by_times and e > a:
                seq = seq * (t(1) / t(e - a))
            out[a:e] = seq * dloss[b]
    return ctx.lod_tensor(out, logits.lod)
