"""The fluid kernels of beam_search."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


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

