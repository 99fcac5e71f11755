"""Fluid kernel of beam_search_decode (a STRUCTURE kernel in Paddle 2.6.2,
paddle/fluid/operators/beam_search_decode_op*.h): the hypotheses of every source sentence,
walked back through the LoDTensorArrays of the steps' selected ids and scores.
"""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.lod import from_lengths

__all__: list[str] = []


_OP = "beam_search_decode"


def _arrays(ctx) -> tuple[list, list]:
    ids, scores = ctx.input("Ids"), ctx.input("Scores")
    for slot, v in (("Ids", ids), ("Scores", scores)):
        if not isinstance(v, list):
            raise InvalidArgument(f"{_OP}: Input({slot}) must be a LoDTensorArray (one LoD "
                                  f"tensor per step), got {type(v).__name__}.")
    if not ids:
        raise InvalidArgument(f"{_OP}: Input(Ids) should not be empty (no beam search step).")
    if len(ids) != len(scores):
        raise InvalidArgument(f"{_OP}: Input(Ids) holds {len(ids)} steps, Input(Scores) "
                              f"{len(scores)}: they must be the same.")
    for k, (i, s) in enumerate(zip(ids, scores, strict=True)):
        if len(i.lod) != 2:
            raise InvalidArgument(f"{_OP}: the LoD of Ids[{k}] must have 2 levels (source, "
                                  f"prefix), got {len(i.lod)}.")
        if i.dtype is not DataType.INT64:
            raise InvalidArgument(f"{_OP}: Ids[{k}] must be int64, got {i.dtype}.")
        if i.data.size != s.data.size:
            raise InvalidArgument(f"{_OP}: Ids[{k}] holds {i.data.size} ids, Scores[{k}] "
                                  f"{s.data.size} scores.")
    return ids, scores


def _backtrace(ids, scores, beam: int, end_id: int) -> list[list[tuple[list, list]]]:
    """Paddle's BeamSearchDecoder::Backtrace: per source, beam_size (ids, scores) lists built
    from the last step back; a source pruned at a step restarts from its candidates there."""
    n_src = len(ids[0].lod[0]) - 1
    if n_src <= 0:
        raise InvalidArgument(f"{_OP}: Ids[0] holds no source sentence (its LoD {ids[0].lod}).")
    sentences = [[([], []) for _ in range(beam)] for _ in range(n_src)]
    prefixes: list[list[int]] = [[] for _ in range(n_src)]
    for step in range(len(ids) - 1, -1, -1):
        src_lod, cand_lod = ids[step].lod
        if len(src_lod) - 1 < n_src:
            raise InvalidArgument(f"{_OP}: Ids[{step}] holds {len(src_lod) - 1} sources, Ids[0] "
                                  f"{n_src}.")
        word = np.asarray(ids[step].data).reshape(-1)
        score = np.asarray(scores[step].data).reshape(-1)
        for src in range(n_src):
            sent, pref = sentences[src], prefixes[src]
            start, end = src_lod[src], src_lod[src + 1]
            if not pref:  # finished (pruned) at this step, or the last step
                for p in range(start, end):
                    for c in range(cand_lod[p], cand_lod[p + 1]):
                        if len(pref) == beam:
                            raise InvalidArgument(f"{_OP}: source {src} has more than "
                                                  f"beam_size ({beam}) candidates at step "
                                                  f"{step}.")
                        pref.append(p)
                        sent[len(pref) - 1][0].append(word[c])
                        sent[len(pref) - 1][1].append(score[c])
                continue
            base, p = cand_lod[start], start
            num = cand_lod[p + 1] - cand_lod[p]
            for k, c in enumerate(pref):
                if word[c] != end_id or not sent[k][0]:  # repeated end tokens are skipped
                    sent[k][0].append(word[c])
                    sent[k][1].append(score[c])
                while base + num <= c:  # the prefix this candidate grew from
                    p += 1
                    num += cand_lod[p + 1] - cand_lod[p]
                pref[k] = p
    return sentences


@register_fluid_kernel(_OP, "CPU", ("float16", "float32", "float64", "int32", "int64"))
class BeamSearchDecodeKernel(FluidKernel):
    """SentenceIds / SentenceScores: each source's beam_size hypotheses, best final score
    first (stable), in step order; LoD [sources -> hypotheses, hypotheses -> tokens]."""

    def compute(self, ctx) -> None:
        ids, scores = _arrays(ctx)
        beam, end_id = int(ctx.attr("beam_size")), int(ctx.attr("end_id"))
        sentences = _backtrace(ids, scores, beam, end_id)
        dtype = np.asarray(scores[0].data).dtype
        out_ids, out_scores, lens = [], [], []
        for src, sent in enumerate(sentences):
            if any(not w for w, _ in sent):
                # Paddle sorts by each hypothesis' first score: an empty one has none to read
                raise InvalidArgument(f"{_OP}: source {src} ends with fewer than beam_size "
                                      f"({beam}) hypotheses.")
            for w, s in sorted(sent, key=lambda h: h[1][0], reverse=True):  # stable
                out_ids.extend(reversed(w))
                out_scores.extend(reversed(s))
                lens.append(len(w))
        lod = from_lengths([[beam] * len(sentences), lens])
        ctx.set_output("SentenceIds", np.asarray(out_ids, np.int64), DataType.INT64, lod=lod)
        ctx.set_output("SentenceScores", np.asarray(out_scores, dtype), lod=lod)

