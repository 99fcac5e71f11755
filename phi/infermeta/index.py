"""InferMeta of the indexing / scatter / graph family of helper `index` (Paddle's
paddle/phi/infermeta/{unary,binary,ternary,multiary}.cc): index_add, index_put, index_sample,
masked_select, put/take_along_axis, repeat_interleave, scatter, scatter_nd_add, set_value,
shard_index, nonzero, gather_tree, unique_consecutive, segment_pool, send_u_recv, send_ue_recv,
send_uv, graph_sample_neighbors, weighted_sample_neighbors.

Sizes that depend on input values are -1 at compile time and at run time alike (the kernel
decides, as Paddle's kernels resize their outputs): masked_select, nonzero, unique_consecutive,
repeat_interleave with a tensor, segment_pool, send_u_recv / send_ue_recv, the samplers.
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import UNKNOWN, check_index_dtype, fmt_dims, set_meta

__all__ = [
    "gather_tree_meta",
    "graph_sample_neighbors_infer_meta",
    "index_add_infer_meta",
    "index_put_infer_meta",
    "index_sample_infer_meta",
    "masked_select_infer_meta",
    "non_zero_infer_meta",
    "put_along_axis_infer_meta",
    "repeat_interleave_infer_meta",
    "repeat_interleave_with_tensor_index_infer_meta",
    "scatter_infer_meta",
    "scatter_nd_add_infer_meta",
    "segment_pool_infer_meta",
    "send_urecv_infer_meta",
    "send_uerecv_infer_meta",
    "send_uvinfer_meta",
    "set_value_infer_meta",
    "shard_index_infer_meta",
    "take_along_axis_infer_meta",
    "unique_consecutive_infer_meta",
    "weighted_sample_neighbors_infer_meta",
]




def _axis(axis: int, rank: int, op: str) -> int:
    if not -max(rank, 1) <= axis < max(rank, 1):
        raise InvalidArgument(f"{op}: the axis should be in range [{-rank}, {rank}), but "
                              f"received {axis}.")
    return axis + rank if axis < 0 else axis


def _broadcast(a, b, op: str) -> tuple[int, ...]:
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for p, q in zip(a, b, strict=True):
        if p == q or q == 1:
            out.append(p)
        elif p == 1:
            out.append(q)
        elif UNKNOWN in (p, q):
            out.append(UNKNOWN)
        else:
            raise InvalidArgument(f"{op}: the feature dims {fmt_dims(a)} and {fmt_dims(b)} do not "
                                  "broadcast.")
    return tuple(out)


def index_add_infer_meta(x, index, add_value, axis: int, out) -> None:
    """IndexAddInferMeta: x's meta; a 1-D int index and an axis inside x's rank."""
    check_index_dtype("index_add", "Index", index)
    _axis(axis, len(x.dims), "index_add")
    if len(index.dims) != 1:
        raise InvalidArgument(f"index_add: Input(Index) must be 1-D, but received "
                              f"{fmt_dims(index.dims)}.")
    out.share_meta(x)


def index_put_infer_meta(x, indices, value, accumulate: bool, out) -> None:
    """IndexPutInferMeta: x's meta; at most rank(x) index tensors."""
    if len(x.dims) > 6:
        raise InvalidArgument(f"index_put: the rank of x must be <= 6, but received "
                              f"{len(x.dims)}.")
    if len(indices) > max(len(x.dims), 1):
        raise InvalidArgument(f"index_put: {len(indices)} index tensors for a tensor of rank "
                              f"{len(x.dims)}.")
    out.share_meta(x)


def index_sample_infer_meta(x, index, out) -> None:
    """IndexSampleInferMeta: 2-D x and index with the same batch; index's dims, x's dtype."""
    check_index_dtype("index_sample", "Index", index)
    xd, idd = tuple(x.dims), tuple(index.dims)
    if len(xd) != 2 or len(idd) != 2:
        raise InvalidArgument(f"index_sample: Inputs(X) and (Index) must be 2-D, but received "
                              f"X {fmt_dims(xd)} and Index {fmt_dims(idd)}.")
    if UNKNOWN not in (xd[0], idd[0]) and xd[0] != idd[0]:
        raise InvalidArgument(f"index_sample: Inputs(X)'s value of dimension 0 must match "
                              f"Inputs(Index)'s, but received {xd[0]} and {idd[0]}.")
    set_meta(out, idd, x.dtype, x.layout)


def masked_select_infer_meta(x, mask, out) -> None:
    """MaskedSelectInferMeta: a 1-D tensor of unknown size, x's dtype."""
    if mask.dtype not in (None, DataType.UNDEFINED, DataType.BOOL):
        raise InvalidArgument(f"masked_select: Input(Mask) must be a bool tensor, but received "
                              f"{mask.dtype}.")
    set_meta(out, (UNKNOWN,), x.dtype, x.layout)


def take_along_axis_infer_meta(x, index, axis: int, out) -> None:
    """TakeAlongAxisInferMeta: index's dims, x's dtype; equal ranks."""
    check_index_dtype("take_along_axis", "Index", index)
    if len(index.dims) != len(x.dims):
        raise InvalidArgument(f"take_along_axis: the rank of Index ({len(index.dims)}) must "
                              f"equal the rank of Input ({len(x.dims)}).")
    _axis(axis, len(x.dims), "take_along_axis")
    set_meta(out, index.dims, x.dtype, x.layout)


def put_along_axis_infer_meta(x, index, value, axis: int, reduce: str, include_self: bool,
                              out) -> None:
    """PutAlongAxisInferMeta: x's meta."""
    check_index_dtype("put_along_axis", "Index", index)
    if len(index.dims) != len(x.dims):
        raise InvalidArgument(f"put_along_axis: the rank of Index ({len(index.dims)}) must "
                              f"equal the rank of Input ({len(x.dims)}).")
    _axis(axis, len(x.dims), "put_along_axis")
    out.share_meta(x)


def repeat_interleave_infer_meta(x, repeats: int, dim: int, out) -> None:
    """RepeatInterleaveInferMeta: x's dims with ``dim``'s size times ``repeats``."""
    dims = list(x.dims)
    ax = _axis(dim, len(dims), "repeat_interleave")
    if dims and dims[ax] != UNKNOWN:
        dims[ax] *= repeats
    set_meta(out, dims, x.dtype, x.layout)


def repeat_interleave_with_tensor_index_infer_meta(x, repeats, dim: int, out) -> None:
    """RepeatInterleaveWithTensorIndexInferMeta: x's dims with ``dim``'s size unknown."""
    check_index_dtype("repeat_interleave", "RepeatsTensor", repeats)
    dims = list(x.dims)
    ax = _axis(dim, len(dims), "repeat_interleave")
    if len(repeats.dims) != 1:
        raise InvalidArgument("repeat_interleave: Input(RepeatsTensor) must be 1-D, but "
                              f"received {fmt_dims(repeats.dims)}.")
    if dims:
        dims[ax] = UNKNOWN
    set_meta(out, dims, x.dtype, x.layout)


def scatter_infer_meta(x, index, updates, overwrite: bool, out) -> None:
    """ScatterInferMeta: x's meta; index 0-D, 1-D or [N, 1]; updates' trailing dims x's."""
    check_index_dtype("scatter", "Ids", index)
    idd, ud, xd = tuple(index.dims), tuple(updates.dims), tuple(x.dims)
    if not xd:
        raise InvalidArgument("scatter: Input(X) must be at least 1-D, but received a 0-D "
                              "tensor.")
    if len(idd) == 2 and idd[1] not in (1, UNKNOWN):
        raise InvalidArgument(f"The last dim of the index should be 1 when the index is a 2D "
                              f"tensor, but we get {idd[1]}.")
    if len(idd) > 2:
        raise InvalidArgument(f"The index should be a 0D or 1D tensor when the index is not a 2D "
                              f"tensor, but we get {len(idd)}.")
    if idd and len(ud) != len(xd):
        raise InvalidArgument(f"The input x and updates should have the same rank, but got "
                              f"{len(xd)} and {len(ud)}.")
    out.share_meta(x)


def scatter_nd_add_infer_meta(x, index, updates, out) -> None:
    """ScatterNdAddInferMeta: x's meta; updates = index.dims[:-1] + x.dims[index.dims[-1]:]."""
    check_index_dtype("scatter_nd_add", "Index", index)
    xd, idd, ud = tuple(x.dims), tuple(index.dims), tuple(updates.dims)
    if not idd:
        raise InvalidArgument("scatter_nd_add: Input(Index) must be at least 1-D, but received "
                              "a 0-D tensor.")
    if idd[-1] != UNKNOWN:
        if idd[-1] > len(xd):
            raise InvalidArgument(f"The last dimension of Input(Index)'s shape should be no "
                                  f"greater than the rank of Input(X), but received "
                                  f"{idd[-1]} and {len(xd)}.")
        want = idd[:-1] + xd[idd[-1]:]
        if UNKNOWN not in want + ud and want != ud:
            raise InvalidArgument(f"Input(Updates)'s shape should be {fmt_dims(want)}, but "
                                  f"received {fmt_dims(ud)}.")
    out.share_meta(x)


def set_value_infer_meta(x, out) -> None:
    """SetValueInferMeta: x's meta (rank < 7)."""
    if len(x.dims) >= 7:
        raise InvalidArgument(f"The rank of input should be less than 7, but received "
                              f"{len(x.dims)}.")
    out.share_meta(x)


def shard_index_infer_meta(x, index_num: int, nshards: int, shard_id: int, ignore_value: int,
                           out) -> None:
    """ShardIndexInferMeta: x's meta; x of rank >= 2 with a last dim of 1."""
    dims = tuple(x.dims)
    if len(dims) < 2 or dims[-1] not in (1, UNKNOWN):
        raise InvalidArgument(f"Rank of Input(X) should be at least 2, and the last dimension "
                              f"should be 1, but received {fmt_dims(dims)}.")
    out.share_meta(x)


def non_zero_infer_meta(condition, out) -> None:
    """NonZeroInferMeta: int64 [-1, rank]; condition at least 1-D."""
    rank = len(condition.dims)
    if rank < 1:
        raise InvalidArgument("Input(Condition) should have number of dimension at least 1")
    set_meta(out, (UNKNOWN, rank), DataType.INT64, condition.layout)


def gather_tree_meta(ids, parents, out) -> None:
    """GatherTreeMeta: ids' meta; ids and parents of equal dims."""
    if tuple(ids.dims) != tuple(parents.dims):
        raise InvalidArgument(f"The shape of Input(Parents) must be same with the shape of "
                              f"Input(Ids), but received {fmt_dims(parents.dims)} and "
                              f"{fmt_dims(ids.dims)}.")
    out.share_meta(ids)


def unique_consecutive_infer_meta(x, return_inverse: bool, return_counts: bool, axis,
                                  dtype: DataType, out, index, counts) -> None:
    """UniqueConsecutiveInferMeta: unique values [-1] (x's dims with -1 along ``axis``), the
    inverse [numel] or [dims[axis]] and the counts [-1] of ``dtype``."""
    dims = tuple(x.dims)
    if axis:
        ax = _axis(int(axis[0]), len(dims), "unique_consecutive")
        out_dims = (*dims[:ax], UNKNOWN, *dims[ax + 1:])
        inverse = (dims[ax],)
    else:
        out_dims = (UNKNOWN,)
        n = 1
        for d in dims:
            n = UNKNOWN if UNKNOWN in (n, d) else n * d
        inverse = (n,)
    set_meta(out, out_dims, x.dtype, x.layout)
    set_meta(index, inverse, dtype, x.layout)
    set_meta(counts, (UNKNOWN,), dtype, x.layout)


def segment_pool_infer_meta(x, segment_ids, pooltype: str, out, summed_ids) -> None:
    """SegmentPoolInferMeta: [-1, x.dims[1:]...] and summed ids [-1, 1], x's dtype."""
    check_index_dtype("segment_pool", "SegmentIds", segment_ids)
    dims = tuple(x.dims)
    if not dims:
        raise InvalidArgument("segment_pool: Input(X) must be at least 1-D.")
    set_meta(out, (UNKNOWN, *dims[1:]), x.dtype, x.layout)
    set_meta(summed_ids, (UNKNOWN, 1), x.dtype, x.layout)


def _check_graph_indices(src, dst, op: str) -> None:
    check_index_dtype(op, "Src_index", src)
    check_index_dtype(op, "Dst_index", dst)
    for name, m in (("Src_index", src), ("Dst_index", dst)):
        d = tuple(m.dims)
        if not (len(d) == 1 or (len(d) == 2 and d[1] in (1, UNKNOWN))):
            raise InvalidArgument(f"{op}: Input({name}) should be 1-D or [N, 1], but received "
                                  f"{fmt_dims(d)}.")


def send_urecv_infer_meta(x, src_index, dst_index, reduce_op: str, out_size, out,
                           dst_count) -> None:
    """SendURecvInferMeta: [-1, x.dims[1:]...] (rows: out_size or x's, decided by the kernel),
    int32 destination counts [-1]."""
    _check_graph_indices(src_index, dst_index, "graph_send_recv")
    dims = tuple(x.dims)
    set_meta(out, (UNKNOWN, *dims[1:]), x.dtype, x.layout)
    set_meta(dst_count, (UNKNOWN,), DataType.INT32, x.layout)


def send_uerecv_infer_meta(x, y, src_index, dst_index, message_op: str, reduce_op: str,
                            out_size, out, dst_count) -> None:
    """SendUERecvInferMeta: [-1] + broadcast(x.dims[1:], y.dims[1:]), int32 counts [-1]."""
    _check_graph_indices(src_index, dst_index, "graph_send_ue_recv")
    feat = _broadcast(tuple(x.dims)[1:], tuple(y.dims)[1:], "graph_send_ue_recv")
    set_meta(out, (UNKNOWN, *feat), x.dtype, x.layout)
    set_meta(dst_count, (UNKNOWN,), DataType.INT32, x.layout)


def send_uvinfer_meta(x, y, src_index, dst_index, message_op: str, out) -> None:
    """SendUVInferMeta: [edges] + broadcast(x.dims[1:], y.dims[1:])."""
    _check_graph_indices(src_index, dst_index, "graph_send_uv")
    feat = _broadcast(tuple(x.dims)[1:], tuple(y.dims)[1:], "graph_send_uv")
    set_meta(out, (next(iter(src_index.dims)), *feat), x.dtype, x.layout)


def graph_sample_neighbors_infer_meta(row, col_ptr, x, eids, perm_buffer, sample_size: int,
                                      return_eids: bool, flag_perm_buffer: bool, out, out_count,
                                      out_eids) -> None:
    """GraphSampleNeighborsInferMeta: neighbours [-1] and edge ids [-1] of row's dtype, int32
    counts [-1]."""
    for name, m in (("Row", row), ("Col_Ptr", col_ptr), ("X", x)):
        check_index_dtype("graph_sample_neighbors", name, m)
    set_meta(out, (UNKNOWN,), row.dtype, row.layout)
    set_meta(out_count, (UNKNOWN,), DataType.INT32, row.layout)
    set_meta(out_eids, (UNKNOWN,), row.dtype, row.layout)


def weighted_sample_neighbors_infer_meta(row, col_ptr, edge_weight, x, eids, sample_size: int,
                                         return_eids: bool, out, out_count, out_eids) -> None:
    """WeightedSampleNeighborsInferMeta: as :func:`graph_sample_neighbors_infer_meta`."""
    graph_sample_neighbors_infer_meta(row, col_ptr, x, eids, None, sample_size, return_eids,
                                      False, out, out_count, out_eids)
