"""The ``weighted_sample_neighbors`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.graph import finish_samples, neighbour_ranges, sampler_rng
from phi.kernels.funcs.indexing import to_host

__all__ = ["weighted_sample_neighbors"]


SAMPLE_DTYPES = ["int32", "int64"]


_COUNT_OUT = {1: {"dtype": DataType.INT32}}


@register_kernel("weighted_sample_neighbors", ("CPU", "GPU"), dtypes=SAMPLE_DTYPES,
                 input_defs={"edge_weight": {"dtype": DataType.FLOAT32}},
                 output_defs=_COUNT_OUT)
def weighted_sample_neighbors(ctx, row: Tensor, col_ptr: Tensor, edge_weight: Tensor,
                              x: Tensor, eids: Tensor | None, sample_size: int,
                              return_eids: bool) -> tuple[Tensor, Tensor, Tensor]:
    """Up to ``sample_size`` neighbours of each node drawn with probability by edge weight
    (keys log2(u) / w, the largest kept, given smallest key first as Paddle's min-heap pops
    them); nodes with no more neighbours keep all, in graph order."""
    h_row, h_ptr, nodes = (to_host(ctx, a).reshape(-1) for a in (row, col_ptr, x))
    h_w = to_host(ctx, edge_weight).reshape(-1)
    h_eids = to_host(ctx, eids)
    if return_eids and h_eids is None:
        raise InvalidArgument("weighted_sample_neighbors: eids is required when return_eids.")
    begin, end = neighbour_ranges(h_row, h_ptr, nodes, sample_size,
                                   "weighted_sample_neighbors")
    rng = sampler_rng()
    outs, counts, out_eids = [], [], []
    for b, e in zip(begin.tolist(), end.tolist(), strict=True):
        pos = np.arange(b, e)
        if sample_size < e - b:
            with np.errstate(all="ignore"):
                keys = np.log2(rng.random(e - b, dtype=np.float32)) * (1 / h_w[b:e])
            top = np.argsort(-keys, kind="stable")[:sample_size]
            pos = pos[top[np.argsort(keys[top], kind="stable")]]
        outs.append(h_row[pos])
        counts.append(pos.size)
        if return_eids:
            out_eids.append(h_eids.reshape(-1)[pos])
    return finish_samples(ctx, outs, counts, out_eids, h_row.dtype, return_eids)
