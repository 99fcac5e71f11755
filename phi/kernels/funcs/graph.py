"""Helpers shared by the graph kernels (send_u_recv / send_ue_recv / send_uv, segment_pool, the
neighbour samplers) and their grads: index checks, message computation, sampling."""

from __future__ import annotations


import numpy as np

from phi import flags
from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.kernels.funcs import trunc_divide
from phi.kernels.funcs.indexing import reduce_into, to_device, to_host

__all__ = ["check_graph_index", "edge_grads", "edge_indices", "edge_message", "edge_operands",
           "finish_samples", "mean_divide", "message_grads", "neighbour_ranges", "out_rows",
           "sampler_rng", "send_recv"]


def mean_divide(out, counts) -> None:
    hit = counts > 0
    if not hit.any():
        return
    shape = (-1,) + (1,) * (out.ndim - 1)
    div = counts[hit].astype(out.dtype).reshape(shape)
    if np.issubdtype(out.dtype, np.integer):
        out[hit] = trunc_divide(np, out[hit], div)
    else:
        out[hit] = out[hit] / div


def check_graph_index(index, size: int, op: str, slot: str) -> None:
    bad = index[(index < 0) | (index >= size)]
    if bad.size:
        raise InvalidArgument(f"{op}: Input({slot}) holds {int(bad[0])}, outside [0, {size}).")


# -- message passing ----------------------------------------------------------------------------

def out_rows(out_size: IntArray, x_rows: int) -> int:
    size = int(out_size.data[0]) if out_size.data else 0
    return size if size > 0 else x_rows


def send_recv(ctx, messages, dst, rows: int, reduce_op: str, op: str):
    """Reduce per-edge ``messages`` into ``rows`` destination rows; (out, int32 counts)."""
    if reduce_op not in ("SUM", "MEAN", "MAX", "MIN"):
        raise InvalidArgument(f"{op}: reduce_op should be SUM, MEAN, MAX or MIN, but received "
                              f"{reduce_op}.")
    check_graph_index(dst, rows, op, "Dst_index")
    out = np.zeros((rows, *messages.shape[1:]), messages.dtype)
    if reduce_op in ("SUM", "MEAN"):
        reduce_into(ctx, out, dst, messages, "add")
    elif dst.size:
        # the first message of a destination is added to its zeros, later ones reduce into it
        _, first = np.unique(dst, return_index=True)
        out[dst[first]] += messages[first]
        rest = np.setdiff1d(np.arange(dst.size), first)
        reduce_into(ctx, out, dst[rest], messages[rest], "max" if reduce_op == "MAX" else "min")
    counts = np.bincount(dst, minlength=rows).astype(np.int32)
    if reduce_op == "MEAN":
        mean_divide(out, counts)
    return to_device(ctx, out), to_device(ctx, counts)


def edge_indices(ctx, src_index, dst_index, op: str):
    src = to_host(ctx, src_index).reshape(-1).astype(np.int64)
    dst = to_host(ctx, dst_index).reshape(-1).astype(np.int64)
    if src.size != dst.size:
        raise InvalidArgument(f"{op}: Src_index and Dst_index should have the same shape, but "
                              f"received {src.size} and {dst.size} indices.")
    return src, dst


def edge_message(x, y, op_name: str, op: str):
    if op_name not in ("ADD", "MUL"):
        raise InvalidArgument(f"{op}: message_op should be ADD or MUL, but received {op_name}.")
    try:
        with np.errstate(all="ignore"):
            return np.add(x, y) if op_name == "ADD" else np.multiply(x, y)
    except ValueError as exc:
        raise InvalidArgument(f"{op}: the feature dims of X {list(x.shape[1:])} and Y "
                              f"{list(y.shape[1:])} do not broadcast.") from exc


def edge_operands(x, y):
    """x's and y's per-edge features aligned for broadcasting (feature dims right-aligned)."""
    fx, fy = x.ndim - 1, y.ndim - 1
    rank = max(fx, fy)
    return (x.reshape((x.shape[0],) + (1,) * (rank - fx) + x.shape[1:]),
            y.reshape((y.shape[0],) + (1,) * (rank - fy) + y.shape[1:]))


# -- samplers -----------------------------------------------------------------------------------

def sampler_rng():
    return np.random.default_rng(flags.FLAGS["FLAGS_graph_sampler_seed"])


def neighbour_ranges(row, col_ptr, nodes, sample_size: int, op: str):
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


def finish_samples(ctx, outs, counts, eids, dtype, return_eids: bool):
    cat = np.concatenate(outs).astype(dtype) if outs else np.zeros(0, dtype)
    e = (np.concatenate(eids).astype(dtype) if eids else np.zeros(0, dtype)) if return_eids \
        else np.zeros(0, dtype)
    return to_device(ctx, cat), to_device(ctx, np.asarray(counts, np.int32)), to_device(ctx, e)


def _sum_to(g, shape):
    """The per-edge gradient ``g`` [E, broadcast feature dims] summed down to a per-edge
    operand of feature ``shape`` (right-aligned, as the forward broadcast it)."""
    rank = g.ndim - 1
    aligned = (1,) * (rank - len(shape)) + tuple(shape)
    axes = tuple(i + 1 for i, n in enumerate(aligned) if n == 1 and g.shape[i + 1] != 1)
    return np.sum(g, axis=axes, keepdims=True, dtype=g.dtype).reshape(g.shape[0], *shape)


def edge_grads(dout, dst, counts, out, messages, reduce_op: str):
    """d message for each edge: dout of its destination (/ the destination's count for MEAN;
    MIN / MAX: only where the message is the reduced value)."""
    g = dout[dst]
    if reduce_op == "MEAN":
        c = np.maximum(counts[dst], 1).astype(g.dtype).reshape((-1,) + (1,) * (g.ndim - 1))
        g = trunc_divide(np, g, c) if np.issubdtype(g.dtype, np.integer) else g / c
    elif reduce_op in ("MIN", "MAX"):
        g = np.where(messages == out[dst], g, g.dtype.type(0))
    return g


def message_grads(x, y, g, message_op: str):
    """(d x-operand, d y-operand) per edge of message x op y with d message ``g``."""
    xs, ys = edge_operands(x, y)
    if message_op == "MUL":
        return _sum_to(g * ys, x.shape[1:]), _sum_to(g * xs, y.shape[1:])
    gb = np.broadcast_to(g, np.broadcast_shapes(g.shape, xs.shape, ys.shape))
    return _sum_to(gb, x.shape[1:]), _sum_to(gb, y.shape[1:])
