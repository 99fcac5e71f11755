"""The fluid kernels of graph_khop_sampler."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import host_in, set_out
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi import flags
from phi.core.errors import InvalidArgument

__all__: list[str] = []


@register_fluid_kernel("graph_khop_sampler", "CPU", ("int32", "int64"))
class GraphKhopSamplerKernel(FluidKernel):
    """Multi-layer neighbour sampling of a CSC graph with the sampled sub-graph reindexed:
    Out_Src / Out_Dst [E, 1] (reindexed), Sample_Index (the nodes in their new order),
    Reindex_X (X's new ids), Out_Eids with ``return_eids``."""

    dtype_tied_inputs = ("Row", "Col_Ptr", "X")

    def compute(self, ctx) -> None:
        row, col_ptr, x = (host_in(ctx, s).reshape(-1) for s in ("Row", "Col_Ptr", "X"))
        sizes = [int(s) for s in ctx.attr("sample_sizes")]
        return_eids = bool(ctx.attr("return_eids"))
        eids = host_in(ctx, "Eids").reshape(-1) if return_eids else None
        rng = np.random.default_rng(flags.FLAGS["FLAGS_graph_sampler_seed"])
        # std::unique: consecutive repeats of X dropped
        inputs = [int(v) for i, v in enumerate(x.tolist()) if i == 0 or v != x[i - 1]]
        dst_layers, src_layers, count_layers, eid_layers = [], [], [], []
        for layer, k in enumerate(sizes):
            if not inputs:
                break
            dst_layers.append(list(inputs))
            src, counts, e = [], [], []
            for node in inputs:
                if not 0 <= node < col_ptr.size - 1:
                    raise InvalidArgument(f"graph_khop_sampler: node {node} is outside the "
                                          f"graph of {col_ptr.size - 1} nodes.")
                b, end = int(col_ptr[node]), int(col_ptr[node + 1])
                if k < 0 and end > b:
                    raise InvalidArgument(f"graph_khop_sampler: sample size {k} must be >= 0 "
                                          "(Paddle's kernel fails: vector::_M_default_append).")
                pos = np.arange(b, end)
                if k < end - b:
                    for i in range(k):  # partial Fisher-Yates, as SampleUniqueNeighbors
                        r = i + int(rng.integers(0, end - b - i))
                        pos[i], pos[r] = pos[r], pos[i]
                    pos = pos[:k]
                src.extend(row[pos].tolist())
                counts.append(pos.size)
                if return_eids:
                    e.extend(eids[pos].tolist())
            if layer == 0 and not src:
                raise InvalidArgument("The input nodes `X` should have at least one neighbors, "
                                      "but none of the input nodes have neighbors.")
            src_layers.append(src)
            count_layers.append(counts)
            eid_layers.append(e)
            if layer < len(sizes) - 1:  # next layer: sampled nodes not sampled from yet
                inputs = sorted(set(src) - set(inputs))
        unique_dst = [n for layer in dst_layers for n in layer]
        src_merge = [n for layer in src_layers for n in layer]
        counts = [c for layer in count_layers for c in layer]
        node_map: dict[int, int] = {}
        unique_nodes = []
        for node in unique_dst:
            unique_nodes.append(node)
            node_map[node] = len(unique_nodes) - 1
        for i, node in enumerate(src_merge):
            if node not in node_map:
                unique_nodes.append(node)
                node_map[node] = len(unique_nodes) - 1
            src_merge[i] = node_map[node]
        dst_merge = [node_map[n] for n, c in zip(unique_dst, counts, strict=True)
                     for _ in range(c)]
        dtype = row.dtype
        set_out(ctx, "Out_Src", np.asarray(src_merge, dtype).reshape(-1, 1))
        set_out(ctx, "Out_Dst", np.asarray(dst_merge, dtype).reshape(-1, 1))
        set_out(ctx, "Sample_Index", np.asarray(unique_nodes, dtype))
        set_out(ctx, "Reindex_X", np.asarray([node_map.get(int(v), 0) for v in x.tolist()], dtype))
        if return_eids:
            set_out(ctx, "Out_Eids", np.asarray([n for layer in eid_layers for n in layer], dtype))

