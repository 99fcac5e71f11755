"""The communication family's kernels that compute locally (issue 12, item 4): c_embedding, a
vocabulary shard's lookup (Paddle's paddle/phi/kernels/cpu/c_embedding_kernel.cc).  The ops that
exchange tensors between ranks are refused before they run (fluid_compat/operators/
unavailable.py)."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Int64, Tensor
from phi.core.registry import register_kernel

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
