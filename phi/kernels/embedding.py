"""The ``embedding`` and ``embedding_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Int64, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import grad_kernel, sum_into
from phi.kernels.funcs.indexing import check_index_range, flat_index

__all__ = ["embedding"]


EMBEDDING_DTYPES = ["float32", "float64", "int8", "float16", "bfloat16"]


@register_kernel("embedding", ("CPU", "GPU"), dtypes=EMBEDDING_DTYPES,
                 input_defs={"x": {"dtype": DataType.ALL_DTYPE}})
def embedding(ctx, x: Tensor, weight: Tensor, padding_idx: int) -> Tensor:
    """weight's rows at the ids ``x`` (out dims x.dims + [width]); ids equal to
    ``padding_idx`` (not -1) give zero rows."""
    xp = ctx.xp
    if xp is np and x.size:  # the same, through ufunc reductions and array methods (cheaper)
        ids = x.reshape(-1)
        lo, hi, size = int(np.minimum.reduce(ids)), int(np.maximum.reduce(ids)), weight.shape[0]
        if lo >= 0 and hi < size:
            out = weight.take(ids, axis=0)
            if padding_idx != -1:
                out[ids == padding_idx] = 0
            return out.reshape(*x.shape, weight.shape[1])
    check_index_range(xp, x, weight.shape[0],
                      "Variable value (input) of OP(fluid.layers.embedding)")
    out = xp.take(weight, xp.reshape(x, (-1,)), axis=0)
    if padding_idx != -1:
        out = xp.where(xp.reshape(x, (-1, 1)) == padding_idx, weight.dtype.type(0), out)
    return xp.reshape(out, (*tuple(x.shape), weight.shape[1]))


_ANY = {"dtype": DataType.ALL_DTYPE}


@grad_kernel("embedding_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "float16", "bfloat16"],
                 input_defs={"x": _ANY})
def embedding_grad(ctx, x: Tensor, weight: Tensor, out_grad: Tensor, padding_idx: Int64
                   ) -> Tensor:
    """out_grad's rows summed into the rows of W the ids named (padding_idx rows: zeros)."""
    ids = flat_index(ctx, x)
    rows, width = weight.shape
    bad = (ids < 0) | (ids >= rows)
    if bad.any():
        raise InvalidArgument(f"Variable value (input) of OP(fluid.layers.embedding) expected "
                              f">= 0 and < {rows}, but got {int(ids[bad][0])}. Please check "
                              "input value.")
    pos = ids[:, None] * width + np.arange(width)[None, :]
    if padding_idx != -1:
        pos = np.where((ids == padding_idx)[:, None], -1, pos)
    g = sum_into(ctx, weight.size, pos, ctx.xp.reshape(out_grad, (ids.size, width)), out_grad)
    return ctx.xp.reshape(g, weight.shape)
