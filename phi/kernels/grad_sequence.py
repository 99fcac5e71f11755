"""Grad kernels of the sequence family with phi kernels (issue 13): sequence_pool_grad (Paddle's
paddle/phi/kernels/impl/sequence_pool_grad_kernel_impl.h, funcs/sequence_pooling.cc)."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet, trunc_divide
from phi.kernels.graph import _edge_operands
from phi.kernels.sequence2 import _bit_codes

__all__: list[str] = []


@register_kernel("sequence_pool_grad", "CPU", dtypes=["float32", "float64"],
                 input_defs={"max_index": {"dtype": DataType.ALL_DTYPE}})
def sequence_pool_grad(ctx, x: LoDTensor, max_index: Tensor | None, out_grad: Tensor,
                       is_test: bool, pooltype: str, pad_value: float) -> LoDTensor:
    """Each sequence's row of Out@GRAD back onto its rows (X's last level): AVERAGE / len,
    SUM as is, SQRT / sqrt(len), MAX at MaxIndex, LAST / FIRST onto that row; empty
    sequences give nothing.  X@GRAD keeps X's LoD."""
    data = x.data
    t = data.dtype.type
    dx = np.zeros_like(data)
    for i, (a, b) in enumerate(pairwise(x.lod[-1])):
        if a == b:
            continue
        g = out_grad[i]
        with quiet(np):
            if pooltype == "AVERAGE":
                dx[a:b] = g / t(b - a)
            elif pooltype == "SUM":
                dx[a:b] = g
            elif pooltype == "SQRT":
                dx[a:b] = g / np.sqrt(t(b - a))
            elif pooltype == "LAST":
                dx[b - 1] = g
            elif pooltype == "FIRST":
                dx[a] = g
            elif pooltype == "MAX":
                rows = np.asarray(max_index[i]).reshape(-1).astype(np.int64)
                flat = dx.reshape(dx.shape[0], -1)
                cols = np.arange(rows.size)
                ok = rows >= 0
                flat[rows[ok], cols[ok]] = np.reshape(g, -1)[ok]
    return ctx.lod_tensor(dx, x.lod)


_ANY = {"dtype": DataType.ALL_DTYPE}


@register_kernel("warpctc_grad", "CPU", dtypes=["float32", "float64"],
                 input_defs={"logits_length": _ANY})
def warpctc_grad(ctx, logits: LoDTensor, logits_length: Tensor | None, warpctcgrad: Tensor,
                 loss_grad: Tensor, blank: int, norm_by_times: bool) -> LoDTensor:
    """WarpCTCGrad ([T_max, B, C]) times each sequence's Loss@GRAD, / its length with
    ``norm_by_times``; unpadded back to Logits' LoD rows when Logits is a LoD tensor."""
    g = np.asarray(warpctcgrad)
    dloss = np.asarray(loss_grad).reshape(-1)
    t = g.dtype.type
    with quiet(np):
        if logits_length is not None:
            lengths = np.asarray(logits_length).reshape(-1)
            out = g * dloss.reshape(1, -1, 1)
            if norm_by_times:
                out = out / lengths.astype(g.dtype).reshape(1, -1, 1)
            return ctx.lod_tensor(out.astype(g.dtype), logits.lod)
        level = logits.lod[-1]
        out = np.zeros(np.shape(logits.data), g.dtype)
        for b, (a, e) in enumerate(pairwise(level)):
            seq = g[:e - a, b]
            if norm_by_times and e > a:
                seq = seq * (t(1) / t(e - a))
            out[a:e] = seq * dloss[b]
    return ctx.lod_tensor(out, logits.lod)


@register_kernel("warprnnt_grad", "CPU", dtypes=["float32", "float64"],
                 input_defs={"input_lengths": _ANY})
def warprnnt_grad(ctx, input: Tensor, input_lengths: Tensor, warprnntgrad: Tensor,
                  loss_grad: Tensor, blank: int, fastemit_lambda: float) -> Tensor:
    """warprnntgrad ([B, T, U, D]) times each sample's loss@GRAD."""
    g = np.asarray(warprnntgrad)
    with quiet(np):
        return (g * np.asarray(loss_grad).reshape(-1, 1, 1, 1)).astype(g.dtype)


# -- shuffle_batch, graph message passing ------------------------------------------------------

_SEND_DTYPES = ["float32", "float64", "int32", "int64"]


@register_kernel("shuffle_batch_grad", "CPU", dtypes=_SEND_DTYPES,
                 input_defs={"shuffleidx": _ANY})
def shuffle_batch_grad(ctx, shuffleidx: Tensor, out_grad: Tensor, startup_seed: int) -> Tensor:
    """Row i of X@GRAD is row ShuffleIdx[i] of Out@GRAD (X's leading dims flattened), as
    Paddle's grad kernel copies it."""
    g = np.asarray(out_grad)
    rows = g.reshape(-1, g.shape[-1]) if g.ndim else g.reshape(1, 1)
    return rows[np.asarray(shuffleidx).reshape(-1).astype(np.int64)].reshape(g.shape)


def _sum_to(g, shape):
    """The per-edge gradient ``g`` [E, broadcast feature dims] summed down to a per-edge
    operand of feature ``shape`` (right-aligned, as the forward broadcast it)."""
    rank = g.ndim - 1
    aligned = (1,) * (rank - len(shape)) + tuple(shape)
    axes = tuple(i + 1 for i, n in enumerate(aligned) if n == 1 and g.shape[i + 1] != 1)
    return np.sum(g, axis=axes, keepdims=True, dtype=g.dtype).reshape(g.shape[0], *shape)


def _edge_grads(dout, dst, counts, out, messages, reduce_op: str):
    """d message for each edge: dout of its destination (/ the destination's count for MEAN;
    MIN / MAX: only where the message is the reduced value)."""
    g = dout[dst]
    if reduce_op == "MEAN":
        c = np.maximum(counts[dst], 1).astype(g.dtype).reshape((-1,) + (1,) * (g.ndim - 1))
        g = trunc_divide(np, g, c) if np.issubdtype(g.dtype, np.integer) else g / c
    elif reduce_op in ("MIN", "MAX"):
        g = np.where(messages == out[dst], g, g.dtype.type(0))
    return g


@register_kernel("send_u_recv_grad", "CPU", dtypes=_SEND_DTYPES,
                 input_defs={"src_index": _ANY, "dst_index": _ANY, "dst_count": _ANY})
def send_u_recv_grad(ctx, x: Tensor, src_index: Tensor, dst_index: Tensor, out: Tensor | None,
                     dst_count: Tensor | None, out_grad: Tensor, reduce_op: str) -> Tensor:
    """dX[src[e]] += d message e (see _edge_grads)."""
    src = np.asarray(src_index).reshape(-1).astype(np.int64)
    dst = np.asarray(dst_index).reshape(-1).astype(np.int64)
    counts = None if dst_count is None else np.asarray(dst_count).reshape(-1)
    with quiet(np):
        g = _edge_grads(np.asarray(out_grad), dst, counts, out, np.asarray(x)[src], reduce_op)
    dx = np.zeros_like(np.asarray(x))
    np.add.at(dx, src, g.astype(dx.dtype))
    return dx


def _message_grads(x, y, g, message_op: str):
    """(d x-operand, d y-operand) per edge of message x op y with d message ``g``."""
    xs, ys = _edge_operands(x, y)
    if message_op == "MUL":
        return _sum_to(g * ys, x.shape[1:]), _sum_to(g * xs, y.shape[1:])
    gb = np.broadcast_to(g, np.broadcast_shapes(g.shape, xs.shape, ys.shape))
    return _sum_to(gb, x.shape[1:]), _sum_to(gb, y.shape[1:])


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
    xs, ys = _edge_operands(x[src], y)
    with quiet(np):
        messages = (xs + ys if message_op == "ADD" else xs * ys).astype(x.dtype)
        g = _edge_grads(np.asarray(out_grad), dst, counts, out, messages, reduce_op)
        gx, gy = _message_grads(x[src], y, g, message_op)
    dx = np.zeros_like(x)
    np.add.at(dx, src, gx.astype(x.dtype))
    return dx, gy.astype(y.dtype)


@register_kernel("send_uv_grad", "CPU", dtypes=_SEND_DTYPES,
                 input_defs={"src_index": _ANY, "dst_index": _ANY})
def send_uv_grad(ctx, x: Tensor, y: Tensor, src_index: Tensor, dst_index: Tensor,
                 out_grad: Tensor, message_op: str) -> tuple[Tensor, Tensor]:
    """out[e] = x[src[e]] (ADD / MUL) y[dst[e]]: gradients back onto X's and Y's rows."""
    x, y = np.asarray(x), np.asarray(y)
    src = np.asarray(src_index).reshape(-1).astype(np.int64)
    dst = np.asarray(dst_index).reshape(-1).astype(np.int64)
    with quiet(np):
        gx, gy = _message_grads(x[src], y[dst], np.asarray(out_grad), message_op)
    dx, dy = np.zeros_like(x), np.zeros_like(y)
    np.add.at(dx, src, gx.astype(x.dtype))
    np.add.at(dy, dst, gy.astype(y.dtype))
    return dx, dy


# -- hierarchical sigmoid ---------------------------------------------------------------------

@register_kernel("hsigmoid_loss_grad", "CPU", dtypes=["float32", "float64"],
                 input_defs={"label": _ANY, "path": _ANY, "code": _ANY})
def hsigmoid_loss_grad(ctx, x: Tensor, w: Tensor, label: Tensor, path: Tensor | None,
                       code: Tensor | None, bias: Tensor | None, pre_out: Tensor,
                       out_grad: Tensor, num_classes: int, is_sparse: bool
                       ) -> tuple[Tensor, Tensor, Tensor]:
    """g[i, j] = (sigmoid from PreOut: 1 - 1 / exp(pre_out) - bit j of sample i's code) *
    dOut[i] along each sample's path; dX[i] += g w[node], dW[node] += g x[i], dBias[node] +=
    g (the clip of the forward is not differentiated, as in Paddle)."""
    x, w = np.asarray(x), np.asarray(w)
    t = x.dtype.type
    codes = _bit_codes(np.asarray(label).reshape(-1), num_classes, path, code)
    pre = np.asarray(pre_out)
    bits = np.zeros_like(pre)
    for i, row in enumerate(codes):
        for j, (_, bit) in enumerate(row):
            bits[i, j] = bit
    with quiet(np):
        g = (t(1) - t(1) / np.exp(pre) - bits) * np.asarray(out_grad).reshape(-1, 1)
    dx, dw = np.zeros_like(x), np.zeros_like(w)
    db = None if bias is None else np.zeros_like(np.asarray(bias)).reshape(-1)
    for i, row in enumerate(codes):
        for j, (idx, _) in enumerate(row):
            dx[i] += g[i, j] * w[idx]
            dw[idx] += g[i, j] * x[i]
            if db is not None:
                db[idx] += g[i, j]
    return dx, dw, None if db is None else db.reshape(np.shape(bias))
