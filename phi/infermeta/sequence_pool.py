"""InferMeta of sequence_pool."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.infermeta._utils import set_meta

__all__ = ["sequence_pool_infer_meta"]


def sequence_pool_infer_meta(x, is_test: bool, pooltype: str, pad_value: float, out,
                             max_index=None) -> None:
    """One row per sequence (known at run time): [-1, X's other dims]; MaxIndex int32."""
    dims = (-1, *tuple(x.dims)[1:])
    set_meta(out, dims, x.dtype)
    if max_index is not None:
        set_meta(max_index, dims, DataType.INT32)
