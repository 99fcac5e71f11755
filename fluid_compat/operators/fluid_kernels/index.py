"""Fluid kernels of helper `index`'s ops that Paddle 2.6.2 keeps as fluid (STRUCTURE) kernels:
unique_with_counts, graph_khop_sampler, hash, similarity_focus (Paddle's paddle/fluid/
operators/{unique_with_counts,graph_khop_sampler,hash,similarity_focus}_op.h).

graph_khop_sampler draws from ``std::random_device`` in Paddle; here from numpy's generator
seeded with ``FLAGS_graph_sampler_seed`` (phi/kernels/graph.py), the same samples for the same
inputs.  Layers whose nodes have no more neighbours than the sample size draw nothing and equal
Paddle's outputs.
"""

from __future__ import annotations

import numpy as np
from phi import flags
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.kernels.funcs import stl_sort
from phi.kernels.unique import _unique

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []


def _host(ctx, slot: str):
    data = ctx.input_array(slot)
    return data if ctx.xp is np else np.asarray(ctx.dev_ctx.to_host(data))


def _set(ctx, slot: str, array) -> None:
    ctx.set_output(slot, array if ctx.xp is np else ctx.dev_ctx.from_host(array))


@register_fluid_kernel("unique_with_counts", "CPU", ("float32", "float64", "int32", "int64"))
class UniqueWithCountsKernel(FluidKernel):
    """Unique values of a 1-D X in order of first appearance, each element's index into them,
    and their counts; the index outputs of the ``dtype`` attribute (int32 or int64)."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        if x.ndim != 1:
            raise InvalidArgument(f"unique_with_counts: Input(X) should be a vector, but "
                                  f"received shape {list(x.shape)}.")
        dtype = DataType.from_proto(int(ctx.attr("dtype")))
        if dtype not in (DataType.INT32, DataType.INT64):
            raise InvalidArgument(f"unique_with_counts: Index holds the wrong type, it holds "
                                  f"{dtype}, but desires to be int32 or int64.")
        out, _, inverse, counts = _unique(ctx.dev_ctx, x, False, True, True, [], dtype, False)
        ctx.set_output("Out", out)
        ctx.set_output("Index", inverse)
        ctx.set_output("Count", counts)


# -- hash: XXH64 of each row's bytes, seeds 0 .. num_hash - 1 ---------------------------------

_P1, _P2, _P3, _P4, _P5 = (np.uint64(p) for p in (
    0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x85EBCA77C2B2AE63,
    0x27D4EB2F165667C5))


def _rotl(v, r: int):
    return (v << np.uint64(r)) | (v >> np.uint64(64 - r))


def _round(acc, lane):
    return _rotl(acc + lane * _P2, 31) * _P1


def xxh64_rows(data: np.ndarray, seed: int) -> np.ndarray:
    """XXH64 (xxHash 64-bit) of every row of a 2-D uint8 array, as uint64."""
    rows, n = data.shape
    seed = np.uint64(seed)
    with np.errstate(over="ignore"):
        pos = 0
        if n >= 32:
            v = [np.full(rows, seed + _P1 + _P2), np.full(rows, seed + _P2),
                 np.full(rows, seed), np.full(rows, seed - _P1)]
            while pos + 32 <= n:
                lanes = data[:, pos:pos + 32].copy().view("<u8")
                v = [_round(v[i], lanes[:, i]) for i in range(4)]
                pos += 32
            h = _rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)
            for i in range(4):
                h = (h ^ _round(np.uint64(0), v[i])) * _P1 + _P4
        else:
            h = np.full(rows, seed + _P5)
        h = h + np.uint64(n)
        while pos + 8 <= n:
            lane = data[:, pos:pos + 8].copy().view("<u8")[:, 0]
            h = _rotl(h ^ _round(np.uint64(0), lane), 27) * _P1 + _P4
            pos += 8
        if pos + 4 <= n:
            lane = data[:, pos:pos + 4].copy().view("<u4")[:, 0].astype(np.uint64)
            h = _rotl(h ^ (lane * _P1), 23) * _P2 + _P3
            pos += 4
        while pos < n:
            h = _rotl(h ^ (data[:, pos].astype(np.uint64) * _P5), 11) * _P1
            pos += 1
        h = (h ^ (h >> np.uint64(33))) * _P2
        h = (h ^ (h >> np.uint64(29))) * _P3
        return h ^ (h >> np.uint64(32))


@register_fluid_kernel("hash", "CPU", ("int32", "int64"))
class HashKernel(FluidKernel):
    """Out[i, j, 0] = XXH64(bytes of row i of X, seed j) % mod_by, for j < num_hash: dims
    X.dims[:-1] + [num_hash, 1]."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        x = _host(ctx, "X")
        num_hash, mod_by = int(ctx.attr("num_hash")), int(ctx.attr("mod_by"))
        if x.ndim < 1:
            raise InvalidArgument("hash: Input(X) must be at least 1-D.")
        if mod_by <= 0:
            raise InvalidArgument(f"hash: Attr(mod_by) must be positive, but received {mod_by}.")
        rows = x.reshape(-1, x.shape[-1] if x.ndim else 1)
        data = np.ascontiguousarray(rows).view(np.uint8).reshape(
            rows.shape[0], rows.shape[1] * rows.itemsize)
        out = np.zeros((rows.shape[0], max(num_hash, 0)), x.dtype)
        for j in range(max(num_hash, 0)):
            # XXH64(...) % mod_by: an unsigned 64-bit remainder, then converted to T
            out[:, j] = (xxh64_rows(data, j) % np.uint64(mod_by)).astype(x.dtype)
        _set(ctx, "Out", out.reshape((*x.shape[:-1], max(num_hash, 0), 1)))


@register_fluid_kernel("similarity_focus", "CPU", ("float32", "float64"))
class SimilarityFocusKernel(FluidKernel):
    """A 0/1 mask: per batch and per index of ``indexes`` along ``axis`` (1, 2 or 3), the
    largest values of that 2-D slice are taken greedily (std::sort descending) so that no two
    share a row or a column, and their rows / columns across ``axis`` are set to 1."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        x = _host(ctx, "X")
        axis, indexes = int(ctx.attr("axis")), [int(i) for i in ctx.attr("indexes")]
        if x.ndim != 4:
            raise InvalidArgument(f"similarity_focus: Input(X)'s rank should be 4, but "
                                  f"received {x.ndim}.")
        if not indexes:
            raise InvalidArgument("The size of Attr(indexes) must be greater than 0, but "
                                  "received 0.")
        if not 1 <= axis <= 3:
            raise InvalidArgument(f"The value of Attr(axis) must be 1 or 2 or 3, but received "
                                  f"{axis}.")
        for i, v in enumerate(indexes):
            if not v < x.shape[axis]:
                raise InvalidArgument(f"Each value of Attr(indexes) must be less than "
                                      f"X.dim[axis], but indexes[{i}] received {v}.")
        out = np.zeros_like(x)
        moved = np.moveaxis(x, axis, 1)  # [batch, axis, a, b]: the other dims keep their order
        mask = np.moveaxis(out, axis, 1)
        a, b = moved.shape[2], moved.shape[3]
        for n in range(x.shape[0]):
            for index in indexes:
                taken_a, taken_b, tags = np.zeros(a, bool), np.zeros(b, bool), 0
                for pos in self._order(moved[n, index].reshape(-1)):
                    ia, ib = divmod(int(pos), b)
                    if taken_a[ia] or taken_b[ib]:
                        continue
                    tags += 1
                    taken_a[ia] = taken_b[ib] = True
                    mask[n, :, ia, ib] = 1
                    if tags == min(a, b):
                        break
        _set(ctx, "Out", out)

    @staticmethod
    def _order(plane):
        """Positions in std::sort's descending order (ties as libstdc++ leaves them)."""
        if np.unique(plane).size == plane.size:
            return np.argsort(-plane, kind="stable")
        pairs = list(zip(plane.tolist(), range(plane.size), strict=True))
        stl_sort.sort(pairs, 0, len(pairs), lambda p, q: p[0] > q[0])
        return [i for _, i in pairs]


@register_fluid_kernel("graph_khop_sampler", "CPU", ("int32", "int64"))
class GraphKhopSamplerKernel(FluidKernel):
    """Multi-layer neighbour sampling of a CSC graph with the sampled sub-graph reindexed:
    Out_Src / Out_Dst [E, 1] (reindexed), Sample_Index (the nodes in their new order),
    Reindex_X (X's new ids), Out_Eids with ``return_eids``."""

    dtype_tied_inputs = ("Row", "Col_Ptr", "X")

    def compute(self, ctx) -> None:
        row, col_ptr, x = (_host(ctx, s).reshape(-1) for s in ("Row", "Col_Ptr", "X"))
        sizes = [int(s) for s in ctx.attr("sample_sizes")]
        return_eids = bool(ctx.attr("return_eids"))
        eids = _host(ctx, "Eids").reshape(-1) if return_eids else None
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
        _set(ctx, "Out_Src", np.asarray(src_merge, dtype).reshape(-1, 1))
        _set(ctx, "Out_Dst", np.asarray(dst_merge, dtype).reshape(-1, 1))
        _set(ctx, "Sample_Index", np.asarray(unique_nodes, dtype))
        _set(ctx, "Reindex_X", np.asarray([node_map.get(int(v), 0) for v in x.tolist()], dtype))
        if return_eids:
            _set(ctx, "Out_Eids", np.asarray([n for layer in eid_layers for n in layer], dtype))
