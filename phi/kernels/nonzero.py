"""The ``nonzero`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.indexing import to_device, to_host

__all__ = ["nonzero"]


NONZERO_DTYPES = ["bfloat16", "bool", "float32", "float64", "int16", "int32", "int64"]


@register_kernel("nonzero", ("CPU", "GPU"), dtypes=NONZERO_DTYPES,
                 output_defs={0: {"dtype": DataType.INT64}})
def nonzero(ctx, condition: Tensor) -> Tensor:
    """[N, rank] int64 coordinates of the non-zero elements in row-major order."""
    h = to_host(ctx, condition)
    if h.ndim == 0:
        return to_device(ctx, np.zeros((int(h != 0), 0), np.int64))
    return to_device(ctx, np.stack(np.nonzero(h), axis=1).astype(np.int64))
