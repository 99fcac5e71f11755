"""The ``c_embedding`` and ``c_embedding_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Int64, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import grad_kernel, sum_into
from phi.kernels.funcs.indexing import flat_index

__all__ = ["c_embedding"]


@register_kernel("c_embedding", "CPU", dtypes=["float16", "float32", "float64"],
                 input_defs={"ids": {"dtype": DataType.ALL_DTYPE}})
def c_embedding(ctx, w: Tensor, ids: Tensor, start_index: Int64, vocab_size: Int64) -> Tensor:
    """Rows ``ids - start_index`` of this rank's shard ``w``; ids outside the shard give zeros."""
    xp = ctx.xp
    if str(ids.dtype) not in ("int32", "int64"):
        raise InvalidArgument(f"c_embedding: Input(Ids) must be int32 or int64, got {ids.dtype}.")
    local = ids.astype("int64") - int(start_index)
    inside = (local >= 0) & (local < w.shape[0])
    out = xp.take(w, xp.where(inside, local, 0), axis=0)
    return xp.where(inside[..., None], out, xp.zeros((), dtype=w.dtype))


_ANY = {"dtype": DataType.ALL_DTYPE}


@grad_kernel("c_embedding_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "float16"],
                 input_defs={"ids": _ANY})
def c_embedding_grad(ctx, w: Tensor, ids: Tensor, out_grad: Tensor, start_index: Int64
                     ) -> Tensor:
    """out_grad's rows summed into rows ids - start_index of this shard's W (ids outside the
    shard give nothing)."""
    local = flat_index(ctx, ids) - int(start_index)
    rows, width = w.shape
    pos = local[:, None] * width + np.arange(width)[None, :]
    pos = np.where(((local < 0) | (local >= rows))[:, None], -1, pos)
    g = sum_into(ctx, w.size, pos, ctx.xp.reshape(out_grad, (local.size, width)), out_grad)
    return ctx.xp.reshape(g, w.shape)
