"""Graph and segment kernels: segment_pool, send_u_recv (legacy graph_send_recv), send_ue_recv,
send_uv, graph_sample_neighbors, weighted_sample_neighbors (Paddle's paddle/phi/kernels/cpu/
{segment_pool,send_u_recv,send_ue_recv,send_uv,graph_sample_neighbors,
weighted_sample_neighbors}_kernel.cc).

Reductions run in edge order as Paddle's loops do (``scatter._reduce_into``).  Indices are not
checked by Paddle's CPU kernels (an out-of-range one reads or writes outside the tensor); here
they raise InvalidArgument (**deviation**).

The samplers draw from ``std::random_device`` in Paddle, so its numbers can never be
reproduced; here they draw from numpy's generator seeded with ``FLAGS_graph_sampler_seed``
(default 0), so equal inputs give equal samples.  Where no node has more neighbours than the
sample size nothing is drawn and the outputs equal Paddle's.
"""

from __future__ import annotations

import numpy as np

from phi import flags
from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import half_op, to_float16, trunc_divide
from phi.kernels.scatter import _back, _host, _reduce_into

__all__ = ["graph_sample_neighbors", "segment_pool", "send_u_recv", "send_ue_recv", "send_uv",
           "weighted_sample_neighbors"]

# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
SEGMENT_DTYPES = ["float16", "float32", "float64", "int32", "int64"]
SEND_DTYPES = ["float32", "float64", "int32", "int64"]
SAMPLE_DTYPES = ["int32", "int64"]

_ANY = {"dtype": DataType.ALL_DTYPE}
_INDEX_INPUTS = {"src_index": _ANY, "dst_index": _ANY}
_COUNT_OUT = {1: {"dtype": DataType.INT32}}



def _mean_divide(out, counts) -> None:
    hit = counts > 0
    if not hit.any():
        return
    shape = (-1,) + (1,) * (out.ndim - 1)
    div = counts[hit].astype(out.dtype).reshape(shape)
    if np.issubdtype(out.dtype, np.integer):
        out[hit] = trunc_divide(np, out[hit], div)
    else:
        out[hit] = out[hit] / div


def _check_index(index, size: int, op: str, slot: str) -> None:
    bad = index[(index < 0) | (index >= size)]
    if bad.size:
        raise InvalidArgument(f"{op}: Input({slot}) holds {int(bad[0])}, outside [0, {size}).")


# -- segment_pool -------------------------------------------------------------------------------

@register_kernel("segment_pool", ("CPU", "GPU"), dtypes=SEGMENT_DTYPES,
                 input_defs={"segment_ids": _ANY})
def segment_pool(ctx, x: Tensor, segment_ids: Tensor, pooltype: str) -> tuple[Tensor, Tensor]:
    """(SUM / MEAN / MAX / MIN of x's rows per sorted segment id, rows per segment [n, 1]);
    segments without rows give zeros."""
    if pooltype not in ("SUM", "MEAN", "MAX", "MIN"):
        raise InvalidArgument(f"Unsupported segment pooling type: {pooltype}; expected SUM, "
                              "MEAN, MAX or MIN.")
    h_x, ids = _host(ctx, x), _host(ctx, segment_ids).reshape(-1).astype(np.int64)
    if ids.size != h_x.shape[0]:
        raise InvalidArgument(f"Segment_ids should be the same size as dimension 0 of input X, "
                              f"but got {ids.size} ids and {h_x.shape[0]} rows.")
    unsorted = np.nonzero(ids[1:] < ids[:-1])[0]
    if unsorted.size:
        i = int(unsorted[0])
        raise InvalidArgument(f"The segment ids should be sorted, but got segment_ids[{i}]:"
                              f"{ids[i]} > segment_ids[{i + 1}]:{ids[i + 1]}.")
    if ids.size and ids[0] < 0:
        raise InvalidArgument(f"The segment ids should be >= 0, but got {ids[0]}.")
    n = int(ids[-1]) + 1 if ids.size else 0
    out = np.zeros((n, *h_x.shape[1:]), h_x.dtype)
    counts = np.bincount(ids, minlength=n)
    if pooltype in ("SUM", "MEAN"):
        _reduce_into(ctx, out, ids, h_x, "add")
        if pooltype == "MEAN":
            if ctx.data_type(out) is DataType.FLOAT16:
                hit = counts > 0
                # Eigen's MeanReducer divides by T(count): the count truncated to float16
                # (2051 -> 2050: Paddle-made case hb_segment_pool_mean_2051_f16)
                div = to_float16(ctx, counts[hit]).reshape((-1,) + (1,) * (out.ndim - 1))
                out[hit] = half_op(ctx, np.divide, out[hit], np.broadcast_to(div,
                                                                           out[hit].shape))
            else:
                _mean_divide(out, counts)
    elif ids.size:
        starts = np.r_[0, np.nonzero(ids[1:] != ids[:-1])[0] + 1]
        out[ids[starts]] = h_x[starts]
        rest = np.setdiff1d(np.arange(ids.size), starts)
        _reduce_into(ctx, out, ids[rest], h_x[rest], "max" if pooltype == "MAX" else "min")
    summed = counts.astype(h_x.dtype).reshape(n, 1)
    return _back(ctx, out), _back(ctx, summed)


# -- message passing ----------------------------------------------------------------------------

def _out_rows(out_size: IntArray, x_rows: int) -> int:
    size = int(out_size.data[0]) if out_size.data else 0
    return size if size > 0 else x_rows


def _send_recv(ctx, messages, dst, rows: int, reduce_op: str, op: str):
    """Reduce per-edge ``messages`` into ``rows`` destination rows; (out, int32 counts)."""
    if reduce_op not in ("SUM", "MEAN", "MAX", "MIN"):
        raise InvalidArgument(f"{op}: reduce_op should be SUM, MEAN, MAX or MIN, but received "
                              f"{reduce_op}.")
    _check_index(dst, rows, op, "Dst_index")
    out = np.zeros((rows, *messages.shape[1:]), messages.dtype)
    if reduce_op in ("SUM", "MEAN"):
        _reduce_into(ctx, out, dst, messages, "add")
    elif dst.size:
        # the first message of a destination is added to its zeros, later ones reduce into it
        _, first = np.unique(dst, return_index=True)
        out[dst[first]] += messages[first]
        rest = np.setdiff1d(np.arange(dst.size), first)
        _reduce_into(ctx, out, dst[rest], messages[rest], "max" if reduce_op == "MAX" else "min")
    counts = np.bincount(dst, minlength=rows).astype(np.int32)
    if reduce_op == "MEAN":
        _mean_divide(out, counts)
    return _back(ctx, out), _back(ctx, counts)


def _indices(ctx, src_index, dst_index, op: str):
    src = _host(ctx, src_index).reshape(-1).astype(np.int64)
    dst = _host(ctx, dst_index).reshape(-1).astype(np.int64)
    if src.size != dst.size:
        raise InvalidArgument(f"{op}: Src_index and Dst_index should have the same shape, but "
                              f"received {src.size} and {dst.size} indices.")
    return src, dst


@register_kernel("send_u_recv", ("CPU", "GPU"), dtypes=SEND_DTYPES, input_defs=_INDEX_INPUTS,
                 output_defs=_COUNT_OUT)
def send_u_recv(ctx, x: Tensor, src_index: Tensor, dst_index: Tensor, reduce_op: str,
                out_size: IntArray) -> tuple[Tensor, Tensor]:
    """out[dst[e]] (reduce_op)= x[src[e]] over the edges in order; rows: out_size (> 0) or
    x's; the int32 destination counts."""
    h_x = _host(ctx, x)
    src, dst = _indices(ctx, src_index, dst_index, "graph_send_recv")
    _check_index(src, h_x.shape[0], "graph_send_recv", "Src_index")
    return _send_recv(ctx, h_x[src], dst, _out_rows(out_size, h_x.shape[0]), reduce_op,
                      "graph_send_recv")


def _message(x, y, op_name: str, op: str):
    if op_name not in ("ADD", "MUL"):
        raise InvalidArgument(f"{op}: message_op should be ADD or MUL, but received {op_name}.")
    try:
        with np.errstate(all="ignore"):
            return np.add(x, y) if op_name == "ADD" else np.multiply(x, y)
    except ValueError as exc:
        raise InvalidArgument(f"{op}: the feature dims of X {list(x.shape[1:])} and Y "
                              f"{list(y.shape[1:])} do not broadcast.") from exc


def _edge_operands(x, y):
    """x's and y's per-edge features aligned for broadcasting (feature dims right-aligned)."""
    fx, fy = x.ndim - 1, y.ndim - 1
    rank = max(fx, fy)
    return (x.reshape((x.shape[0],) + (1,) * (rank - fx) + x.shape[1:]),
            y.reshape((y.shape[0],) + (1,) * (rank - fy) + y.shape[1:]))


@register_kernel("send_ue_recv", ("CPU", "GPU"), dtypes=SEND_DTYPES, input_defs=_INDEX_INPUTS,
                 output_defs=_COUNT_OUT)
def send_ue_recv(ctx, x: Tensor, y: Tensor, src_index: Tensor, dst_index: Tensor,
                 message_op: str, reduce_op: str, out_size: IntArray) -> tuple[Tensor, Tensor]:
    """Messages x[src[e]] (ADD / MUL) y[e], feature dims broadcast, reduced into dst rows as
    ``send_u_recv``."""
    h_x, h_y = _host(ctx, x), _host(ctx, y)
    src, dst = _indices(ctx, src_index, dst_index, "graph_send_ue_recv")
    _check_index(src, h_x.shape[0], "graph_send_ue_recv", "Src_index")
    if h_y.shape[0] != src.size:
        raise InvalidArgument(f"graph_send_ue_recv: Input(Y) must have one row per edge "
                              f"({src.size}), but has {h_y.shape[0]}.")
    xs, ys = _edge_operands(h_x[src], h_y)
    messages = _message(xs, ys, message_op, "graph_send_ue_recv").astype(h_x.dtype)
    return _send_recv(ctx, messages, dst, _out_rows(out_size, h_x.shape[0]), reduce_op,
                      "graph_send_ue_recv")


@register_kernel("send_uv", ("CPU", "GPU"), dtypes=SEND_DTYPES, input_defs=_INDEX_INPUTS)
def send_uv(ctx, x: Tensor, y: Tensor, src_index: Tensor, dst_index: Tensor,
            message_op: str) -> Tensor:
    """Per-edge messages x[src[e]] (ADD / MUL) y[dst[e]], feature dims broadcast."""
    h_x, h_y = _host(ctx, x), _host(ctx, y)
    src, dst = _indices(ctx, src_index, dst_index, "graph_send_uv")
    _check_index(src, h_x.shape[0], "graph_send_uv", "src_index")
    _check_index(dst, h_y.shape[0], "graph_send_uv", "dst_index")
    xs, ys = _edge_operands(h_x[src], h_y[dst])
    return _back(ctx, _message(xs, ys, message_op, "graph_send_uv").astype(h_x.dtype))


# -- samplers -----------------------------------------------------------------------------------

def _rng():
    return np.random.default_rng(flags.FLAGS["FLAGS_graph_sampler_seed"])


def _neighbour_ranges(row, col_ptr, nodes, sample_size: int, op: str):
    if sample_size < 0 and nodes.size:
        raise InvalidArgument(f"{op}: sample_size must be >= 0 on CPU (Paddle's kernel fails "
                              f"on {sample_size}: vector::_M_default_append).")
    bad = nodes[(nodes < 0) | (nodes >= col_ptr.size - 1)]
    if bad.size:
        raise InvalidArgument(f"{op}: input node {int(bad[0])} is outside the graph of "
                              f"{col_ptr.size - 1} nodes.")
    begin, end = col_ptr[nodes].astype(np.int64), col_ptr[nodes + 1].astype(np.int64)
    if (begin > end).any() or (end > row.size).any() or (begin < 0).any():
        raise InvalidArgument(f"{op}: Col_Ptr does not describe ranges of Row.")
    return begin, end


def _finish(ctx, outs, counts, eids, dtype, return_eids: bool):
    cat = np.concatenate(outs).astype(dtype) if outs else np.zeros(0, dtype)
    e = (np.concatenate(eids).astype(dtype) if eids else np.zeros(0, dtype)) if return_eids \
        else np.zeros(0, dtype)
    return _back(ctx, cat), _back(ctx, np.asarray(counts, np.int32)), _back(ctx, e)


@register_kernel("graph_sample_neighbors", ("CPU", "GPU"), dtypes=SAMPLE_DTYPES,
                 output_defs=_COUNT_OUT)
def graph_sample_neighbors(ctx, row: Tensor, col_ptr: Tensor, x: Tensor, eids: Tensor | None,
                           perm_buffer: Tensor | None, sample_size: int, return_eids: bool,
                           flag_perm_buffer: bool) -> tuple[Tensor, Tensor, Tensor]:
    """Up to ``sample_size`` neighbours of each node of x in a CSC graph (all of them when it
    has no more), drawn without replacement by a partial Fisher-Yates shuffle as Paddle's;
    (neighbours, int32 counts, their edge ids when ``return_eids``)."""
    h_row, h_ptr, nodes = (_host(ctx, a).reshape(-1) for a in (row, col_ptr, x))
    h_eids = _host(ctx, eids)
    if return_eids and h_eids is None:
        raise InvalidArgument("graph_sample_neighbors: Eids is required when return_eids.")
    begin, end = _neighbour_ranges(h_row, h_ptr, nodes, sample_size, "graph_sample_neighbors")
    rng = _rng()
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
    return _finish(ctx, outs, counts, out_eids, h_row.dtype, return_eids)


@register_kernel("weighted_sample_neighbors", ("CPU", "GPU"), dtypes=SAMPLE_DTYPES,
                 input_defs={"edge_weight": {"dtype": DataType.FLOAT32}},
                 output_defs=_COUNT_OUT)
def weighted_sample_neighbors(ctx, row: Tensor, col_ptr: Tensor, edge_weight: Tensor,
                              x: Tensor, eids: Tensor | None, sample_size: int,
                              return_eids: bool) -> tuple[Tensor, Tensor, Tensor]:
    """Up to ``sample_size`` neighbours of each node drawn with probability by edge weight
    (keys log2(u) / w, the largest kept, given smallest key first as Paddle's min-heap pops
    them); nodes with no more neighbours keep all, in graph order."""
    h_row, h_ptr, nodes = (_host(ctx, a).reshape(-1) for a in (row, col_ptr, x))
    h_w = _host(ctx, edge_weight).reshape(-1)
    h_eids = _host(ctx, eids)
    if return_eids and h_eids is None:
        raise InvalidArgument("weighted_sample_neighbors: eids is required when return_eids.")
    begin, end = _neighbour_ranges(h_row, h_ptr, nodes, sample_size,
                                   "weighted_sample_neighbors")
    rng = _rng()
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
    return _finish(ctx, outs, counts, out_eids, h_row.dtype, return_eids)
