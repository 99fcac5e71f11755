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
