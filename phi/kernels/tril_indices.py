"""The ``tril_indices`` kernel."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["tril_indices"]


INDEX_DTYPES = ["int32", "int64"]


@register_kernel("tril_indices", ("CPU", "GPU"), dtypes=INDEX_DTYPES)
def tril_indices(ctx, rows: int, cols: int, offset: int, dtype: DataType) -> Tensor:
    """[2, n]: the (row, col) of the lower triangle (col - row <= offset), row-major."""
    if rows < 0 or cols < 0:
        raise InvalidArgument(f"tril_indices: rows and cols must be non-negative, but received "
                              f"({rows}, {cols}).")
    r, c = np.tril_indices(rows, offset, cols)
    return ctx.asarray(np.stack([r, c]).astype(dtype.to_numpy()), dtype)
