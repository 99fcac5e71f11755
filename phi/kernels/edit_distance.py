"""The ``edit_distance`` kernel."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel

__all__ = ["edit_distance"]


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
