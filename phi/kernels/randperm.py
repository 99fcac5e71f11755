"""The ``randperm`` kernel."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.cpu_random import engine_for, uniform_int

__all__ = ["randperm"]


@register_kernel("randperm", "CPU", dtypes=["float32", "float64", "int32", "int64"])
def randperm(ctx, n: int, dtype: DataType) -> Tensor:
    """A random permutation of 0..n-1 (std::shuffle on the process-wide generator)."""
    if n < 0:
        raise InvalidArgument(f"The input n should be greater than 0 in randperm op, got {n}.")
    engine = engine_for(0)
    perm = np.arange(n)
    for i in range(n - 1, 0, -1):  # Fisher-Yates with the engine's integers
        j = int(uniform_int(engine, 1, 0, i)[0])
        perm[i], perm[j] = perm[j], perm[i]
    return perm.astype(dtype.to_numpy())
