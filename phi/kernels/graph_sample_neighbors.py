"""The ``graph_sample_neighbors`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.graph import finish_samples, neighbour_ranges, sampler_rng
from phi.kernels.funcs.indexing import to_host

__all__ = ["graph_sample_neighbors"]


SAMPLE_DTYPES = ["int32", "int64"]


_COUNT_OUT = {1: {"dtype": DataType.INT32}}


@register_kernel("graph_sample_neighbors", ("CPU", "GPU"), dtypes=SAMPLE_DTYPES,
                 output_defs=_COUNT_OUT)
def graph_sample_neighbors(ctx, row: Tensor, col_ptr: Tensor, x: Tensor, eids: Tensor | None,
                           perm_buffer: Tensor | None, sample_size: int, return_eids: bool,
                           flag_perm_buffer: bool) -> tuple[Tensor, Tensor, Tensor]:
    """Up to ``sample_size`` neighbours of each node of x in a CSC graph (all of them when it
    has no more), drawn without replacement by a partial Fisher-Yates shuffle as Paddle's;
    (neighbours, int32 counts, their edge ids when ``return_eids``)."""
    h_row, h_ptr, nodes = (to_host(ctx, a).reshape(-1) for a in (row, col_ptr, x))
    h_eids = to_host(ctx, eids)
    if return_eids and h_eids is None:
        raise InvalidArgument("graph_sample_neighbors: Eids is required when return_eids.")
    begin, end = neighbour_ranges(h_row, h_ptr, nodes, sample_size, "graph_sample_neighbors")
    rng = sampler_rng()
    outs, counts, out_eids = [], [], []
    for b, e in zip(begin.tolist(), end.tolist(), strict=True):
        pos = np.arange(b, e)
        if sample_size < e - b:
            for i in range(sample_size):  # swap a random remaining one to the front
                r = i + int(rng.integers(0, e - b - i))
                pos[i], pos[r] = pos[r], pos[i]
            pos = pos[:sample_size]
        outs.append(h_row[pos])
        counts.append(pos.size)
        if return_eids:
            out_eids.append(h_eids.reshape(-1)[pos])
    return finish_samples(ctx, outs, counts, out_eids, h_row.dtype, return_eids)
