"""The ``triu_indices`` kernel."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["triu_indices"]


INDEX_DTYPES = ["int32", "int64"]


@register_kernel("triu_indices", ("CPU", "GPU"), dtypes=INDEX_DTYPES)
def triu_indices(ctx, row: int, col: int, offset: int, dtype: DataType) -> Tensor:
    """[2, n]: the (row, col) of the upper triangle (col - row >= offset), row-major."""
    if row < 0 or col < 0:
        raise InvalidArgument(f"triu_indices: row and col must be non-negative, but received "
                              f"({row}, {col}).")
    r, c = np.triu_indices(row, offset, col)
    return ctx.asarray(np.stack([r, c]).astype(dtype.to_numpy()), dtype)
