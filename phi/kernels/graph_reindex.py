"""graph_reindex (Paddle's GraphReindexKernel, CPU): renumber a sampled subgraph.

X holds the (distinct) center nodes, Neighbors the sampled neighbours of all centers one after
the other, Count how many belong to each center.  Out_Nodes is X followed by every neighbour not
seen before, in first-seen order; Reindex_Src is each neighbour's index in Out_Nodes;
Reindex_Dst repeats center i Count[i] times.  HashTable_Value / HashTable_Index are GPU
buffers; the CPU kernel does not read them.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["graph_reindex"]


@register_kernel("graph_reindex", ("CPU",), dtypes=["int32", "int64"],
                 input_defs={"count": {"dtype": DataType.ALL_DTYPE},
                             "hashtable_value": {"dtype": DataType.ALL_DTYPE},
                             "hashtable_index": {"dtype": DataType.ALL_DTYPE}})
def graph_reindex(ctx, x: Tensor, neighbors: Tensor, count: Tensor,
                  hashtable_value: Tensor | None, hashtable_index: Tensor | None
                  ) -> tuple[Tensor, Tensor, Tensor]:
    """(Reindex_Src, Reindex_Dst, Out_Nodes) in X's dtype."""
    xs = np.asarray(x).reshape(-1)
    nbrs = np.asarray(neighbors).reshape(-1)
    counts = np.asarray(count).reshape(-1).astype(np.int64)
    if counts.size != xs.size:
        raise InvalidArgument(f"graph_reindex: Count has {counts.size} entries, X has "
                              f"{xs.size} nodes (one count per center node).")
    if int(counts.sum()) != nbrs.size:
        raise InvalidArgument(f"graph_reindex: the counts sum to {int(counts.sum())}, but "
                              f"Neighbors has {nbrs.size} nodes.")
    index: dict[int, int] = {}
    for i, node in enumerate(xs.tolist()):
        index.setdefault(node, i)
    out_nodes = list(xs.tolist())
    src = np.empty(nbrs.size, dtype=xs.dtype)
    for j, node in enumerate(nbrs.tolist()):
        k = index.get(node)
        if k is None:
            k = index[node] = len(out_nodes)
            out_nodes.append(node)
        src[j] = k
    dst = np.repeat(np.arange(xs.size, dtype=xs.dtype), counts)
    xp = ctx.xp
    return (xp.asarray(src), xp.asarray(dst), xp.asarray(np.asarray(out_nodes, xs.dtype)))
