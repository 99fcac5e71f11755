"""The fluid kernels of crf_decoding, linear_chain_crf, linear_chain_crf_grad."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import FLOATS, lod_offsets, rank, wanted
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.funcs import quiet

__all__: list[str] = []


def _normalized(v):
    """NormalizeL1 of a row (a copy)."""
    return v * (v.dtype.type(1) / v.sum())


@register_fluid_kernel("linear_chain_crf_grad", "CPU", FLOATS)
class LinearChainCrfGradKernel(FluidKernel):
    """Per sequence: beta by the backward recursion over TransitionExps (L1-normalized rows);
    dEmission = ll_grad * (alpha * beta / row sums) - ll_grad at the labels; dTransition:
    start / end rows from the first / last dEmission rows, tag-to-tag rows from the
    normalized pairwise marginals minus the label transitions (Paddle's order of sums)."""

    def compute(self, ctx) -> None:
        em = ctx.input_array("Emission")
        tags = em.shape[-1]
        x_exps = ctx.input_array("EmissionExps").reshape(-1, tags)
        alpha = ctx.input_array("Alpha").reshape(-1, tags)
        w_exps = ctx.input_array("TransitionExps")
        labels = ctx.input_array("Label").reshape(-1).astype(np.int64)
        ll_grad = ctx.input_array("LogLikelihood@GRAD").reshape(-1)
        if ctx.has_input("Length"):
            lengths = ctx.input_array("Length").reshape(-1).tolist()
            ranges = [(i * em.shape[1], i * em.shape[1] + int(n)) for i, n in enumerate(lengths)]
        else:
            ranges = list(pairwise(ctx.input("Label").lod[0]))
        t = em.dtype.type
        dx = np.zeros_like(x_exps)
        dw = np.zeros_like(w_exps)
        trans = w_exps[2:]
        with quiet(np):
            for s, (a, b) in enumerate(ranges):
                if a == b:
                    continue
                n, g = b - a, ll_grad[s]
                beta = np.empty((n, tags), em.dtype)
                beta[-1] = _normalized(w_exps[1].copy())
                for k in range(n - 2, -1, -1):
                    beta[k] = _normalized(trans @ (x_exps[a + k + 1] * beta[k + 1]))
                prob = alpha[a:b] * beta
                dxs = (prob / prob.sum(axis=1, keepdims=True)) * g
                dxs[np.arange(n), labels[a:b]] -= g
                dx[a:b] = dxs
                dw[0] += dxs[0]
                dw[1] += dxs[-1]
                p2 = beta * x_exps[a:b]
                tmp = p2 / p2.sum(axis=1, keepdims=True)
                for k in range(1, n):
                    pair = trans * np.outer(alpha[a + k - 1], tmp[k])
                    dw[2:] += (t(1) / pair.sum()) * pair * g
                    dw[labels[a + k - 1] + 2, labels[a + k]] -= g
        if wanted(ctx, "Emission@GRAD"):
            ctx.set_output("Emission@GRAD", dx.reshape(em.shape), lod=ctx.input("Emission").lod)
        if wanted(ctx, "Transition@GRAD"):
            ctx.set_output("Transition@GRAD", dw)


def _crf_ranges(ctx, slot: str, rows_per_seq: int | None):
    """(start, end) rows of each sequence: Length (padding mode, rows_per_seq per sequence) or
    the LoD of ``slot``."""
    if ctx.has_input("Length"):
        lengths = ctx.input_array("Length").reshape(-1).tolist()
        return [(i * rows_per_seq, i * rows_per_seq + int(n)) for i, n in enumerate(lengths)]
    return list(pairwise(lod_offsets(ctx, slot)))


def _crf_check(ctx, em, w) -> int:
    """Emission [N, D] (LoD) or [B, S, D] (Length), Transition [D + 2, D]: the tag count D."""
    rank(ctx, "Emission", (3,) if ctx.has_input("Length") else (2,),
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

