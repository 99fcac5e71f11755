"""The ``send_uv`` and ``send_uv_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet
from phi.kernels.funcs.graph import (check_graph_index, edge_indices, edge_message, edge_operands,
                                     message_grads)
from phi.kernels.funcs.indexing import to_device, to_host

__all__ = ["send_uv"]


SEND_DTYPES = ["float32", "float64", "int32", "int64"]


_ANY = {"dtype": DataType.ALL_DTYPE}
_INDEX_INPUTS = {"src_index": _ANY, "dst_index": _ANY}


@register_kernel("send_uv", ("CPU", "GPU"), dtypes=SEND_DTYPES, input_defs=_INDEX_INPUTS)
def send_uv(ctx, x: Tensor, y: Tensor, src_index: Tensor, dst_index: Tensor,
            message_op: str) -> Tensor:
    """Per-edge messages x[src[e]] (ADD / MUL) y[dst[e]], feature dims broadcast."""
    h_x, h_y = to_host(ctx, x), to_host(ctx, y)
    src, dst = edge_indices(ctx, src_index, dst_index, "graph_send_uv")
    check_graph_index(src, h_x.shape[0], "graph_send_uv", "src_index")
    check_graph_index(dst, h_y.shape[0], "graph_send_uv", "dst_index")
    xs, ys = edge_operands(h_x[src], h_y[dst])
    return to_device(ctx, edge_message(xs, ys, message_op, "graph_send_uv").astype(h_x.dtype))


# -- shuffle_batch, graph message passing ------------------------------------------------------

_SEND_DTYPES = ["float32", "float64", "int32", "int64"]


@register_kernel("send_uv_grad", "CPU", dtypes=_SEND_DTYPES,
                 input_defs={"src_index": _ANY, "dst_index": _ANY})
def send_uv_grad(ctx, x: Tensor, y: Tensor, src_index: Tensor, dst_index: Tensor,
                 out_grad: Tensor, message_op: str) -> tuple[Tensor, Tensor]:
    """out[e] = x[src[e]] (ADD / MUL) y[dst[e]]: gradients back onto X's and Y's rows."""
    x, y = np.asarray(x), np.asarray(y)
    src = np.asarray(src_index).reshape(-1).astype(np.int64)
    dst = np.asarray(dst_index).reshape(-1).astype(np.int64)
    with quiet(np):
        gx, gy = message_grads(x[src], y[dst], np.asarray(out_grad), message_op)
    dx, dy = np.zeros_like(x), np.zeros_like(y)
    np.add.at(dx, src, gx.astype(x.dtype))
    np.add.at(dy, dst, gy.astype(y.dtype))
    return dx, dy
