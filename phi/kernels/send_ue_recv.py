"""The ``send_ue_recv`` and ``send_ue_recv_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet
from phi.kernels.funcs.graph import (check_graph_index, edge_grads, edge_indices, edge_message,
                                     edge_operands, message_grads, out_rows, send_recv)
from phi.kernels.funcs.indexing import to_host

__all__ = ["send_ue_recv"]


SEND_DTYPES = ["float32", "float64", "int32", "int64"]


_ANY = {"dtype": DataType.ALL_DTYPE}
_INDEX_INPUTS = {"src_index": _ANY, "dst_index": _ANY}
_COUNT_OUT = {1: {"dtype": DataType.INT32}}


@register_kernel("send_ue_recv", ("CPU", "GPU"), dtypes=SEND_DTYPES, input_defs=_INDEX_INPUTS,
                 output_defs=_COUNT_OUT)
def send_ue_recv(ctx, x: Tensor, y: Tensor, src_index: Tensor, dst_index: Tensor,
                 message_op: str, reduce_op: str, out_size: IntArray) -> tuple[Tensor, Tensor]:
    """Messages x[src[e]] (ADD / MUL) y[e], feature dims broadcast, reduced into dst rows as
    ``send_u_recv``."""
    h_x, h_y = to_host(ctx, x), to_host(ctx, y)
    src, dst = edge_indices(ctx, src_index, dst_index, "graph_send_ue_recv")
    check_graph_index(src, h_x.shape[0], "graph_send_ue_recv", "Src_index")
    if h_y.shape[0] != src.size:
        raise InvalidArgument(f"graph_send_ue_recv: Input(Y) must have one row per edge "
                              f"({src.size}), but has {h_y.shape[0]}.")
    xs, ys = edge_operands(h_x[src], h_y)
    messages = edge_message(xs, ys, message_op, "graph_send_ue_recv").astype(h_x.dtype)
    return send_recv(ctx, messages, dst, out_rows(out_size, h_x.shape[0]), reduce_op,
                      "graph_send_ue_recv")


# -- shuffle_batch, graph message passing ------------------------------------------------------

_SEND_DTYPES = ["float32", "float64", "int32", "int64"]


@register_kernel("send_ue_recv_grad", "CPU", dtypes=_SEND_DTYPES,
                 input_defs={"src_index": _ANY, "dst_index": _ANY, "dst_count": _ANY})
def send_ue_recv_grad(ctx, x: Tensor, y: Tensor, src_index: Tensor, dst_index: Tensor,
                      out: Tensor | None, dst_count: Tensor | None, out_grad: Tensor,
                      message_op: str, reduce_op: str) -> tuple[Tensor, Tensor]:
    """Messages x[src[e]] (ADD / MUL) y[e] reduced into dst: their gradients back onto X's
    rows and Y's edges, broadcast dims summed."""
    x, y = np.asarray(x), np.asarray(y)
    src = np.asarray(src_index).reshape(-1).astype(np.int64)
    dst = np.asarray(dst_index).reshape(-1).astype(np.int64)
    counts = None if dst_count is None else np.asarray(dst_count).reshape(-1)
    xs, ys = edge_operands(x[src], y)
    with quiet(np):
        messages = (xs + ys if message_op == "ADD" else xs * ys).astype(x.dtype)
        g = edge_grads(np.asarray(out_grad), dst, counts, out, messages, reduce_op)
        gx, gy = message_grads(x[src], y, g, message_op)
    dx = np.zeros_like(x)
    np.add.at(dx, src, gx.astype(x.dtype))
    return dx, gy.astype(y.dtype)
