"""The ``randint`` and ``randint_with_seed`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.cpu_random import MT19937_64, engine_for, uniform_int
from phi.kernels.funcs.common import shape_dims, shape_numel

__all__ = ["randint", "randint_with_seed"]


@register_kernel("randint", "CPU", dtypes=["int32", "int64"])
def randint(ctx, low: int, high: int, shape: IntArray, dtype: DataType) -> Tensor:
    """Integers uniform in [low, high) from Paddle's process-wide generator (seed 0)."""
    return _randint(low, high, shape_dims(shape), dtype, engine_for(0))


@register_kernel("randint_with_seed", "CPU", dtypes=["int32", "int64"])
def randint_with_seed(ctx, low: int, high: int, shape: IntArray, seed_attr: int, dtype_attr: int
                      ) -> Tensor:
    """Paddle 2.6.2's RandintWithSeedKernel takes (..., dtype, seed) while the legacy op's
    signature passes (..., seed, dtype): its engine is seeded with the dtype attribute (3 for
    int64, 2 for int32) and the seed attribute is ignored.  Reproduced: Paddle's numbers."""
    return _randint(low, high, shape_dims(shape), DataType.from_proto(int(dtype_attr)),
                    MT19937_64(int(dtype_attr)))


def _randint(low: int, high: int, dims, dtype: DataType, engine) -> np.ndarray:
    if low >= high:
        raise InvalidArgument(f"randint's low must less then high, but received: low = {low}, "
                              f"high = {high}.")
    values = uniform_int(engine, shape_numel(dims), low, high - 1)
    return values.astype(dtype.to_numpy()).reshape(dims)
