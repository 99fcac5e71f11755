"""The fluid kernels of chunk_eval."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import lod_offsets
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


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
            seqs = [(fi[a:b], fl[a:b]) for a, b in pairwise(lod_offsets(ctx, "Inference"))]
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

