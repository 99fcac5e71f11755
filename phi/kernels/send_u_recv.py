"""The ``send_u_recv`` and ``send_u_recv_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet
from phi.kernels.funcs.graph import check_graph_index, edge_grads, edge_indices, out_rows, send_recv
from phi.kernels.funcs.indexing import to_host

__all__ = ["send_u_recv"]


SEND_DTYPES = ["float32", "float64", "int32", "int64"]


_ANY = {"dtype": DataType.ALL_DTYPE}
_INDEX_INPUTS = {"src_index": _ANY, "dst_index": _ANY}
_COUNT_OUT = {1: {"dtype": DataType.INT32}}


@register_kernel("send_u_recv", ("CPU", "GPU"), dtypes=SEND_DTYPES, input_defs=_INDEX_INPUTS,
                 output_defs=_COUNT_OUT)
def send_u_recv(ctx, x: Tensor, src_index: Tensor, dst_index: Tensor, reduce_op: str,
                out_size: IntArray) -> tuple[Tensor, Tensor]:
    """out[dst[e]] (reduce_op)= x[src[e]] over the edges in order; rows: out_size (> 0) or
    x's; the int32 destination counts."""
    h_x = to_host(ctx, x)
    src, dst = edge_indices(ctx, src_index, dst_index, "graph_send_recv")
    check_graph_index(src, h_x.shape[0], "graph_send_recv", "Src_index")
    return send_recv(ctx, h_x[src], dst, out_rows(out_size, h_x.shape[0]), reduce_op,
                      "graph_send_recv")


# -- shuffle_batch, graph message passing ------------------------------------------------------

_SEND_DTYPES = ["float32", "float64", "int32", "int64"]


@register_kernel("send_u_recv_grad", "CPU", dtypes=_SEND_DTYPES,
                 input_defs={"src_index": _ANY, "dst_index": _ANY, "dst_count": _ANY})
def send_u_recv_grad(ctx, x: Tensor, src_index: Tensor, dst_index: Tensor, out: Tensor | None,
                     dst_count: Tensor | None, out_grad: Tensor, reduce_op: str) -> Tensor:
    """dX[src[e]] += d message e (see _edge_grads)."""
    src = np.asarray(src_index).reshape(-1).astype(np.int64)
    dst = np.asarray(dst_index).reshape(-1).astype(np.int64)
    counts = None if dst_count is None else np.asarray(dst_count).reshape(-1)
    with quiet(np):
        g = edge_grads(np.asarray(out_grad), dst, counts, out, np.asarray(x)[src], reduce_op)
    dx = np.zeros_like(np.asarray(x))
    np.add.at(dx, src, g.astype(dx.dtype))
    return dx
