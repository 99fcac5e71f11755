"""Grad kernels of the sequence family with phi kernels (issue 13): sequence_pool_grad (Paddle's
paddle/phi/kernels/impl/sequence_pool_grad_kernel_impl.h, funcs/sequence_pooling.cc)."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet

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
