"""The ``uniform`` and ``uniform_raw`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.scalar import Scalar
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.cpu_random import set_diagonal, uniform_values
from phi.kernels.funcs.common import shape_dims

__all__ = ["uniform", "uniform_raw"]


@register_kernel("uniform", "CPU", dtypes=["bfloat16", "float32", "float64"])
def uniform(ctx, shape: IntArray, dtype: DataType, min: Scalar, max: Scalar, seed: int
            ) -> Tensor:
    """U(min, max) of ``shape``, Paddle's mt19937_64 stream for a non-zero seed."""
    return uniform_values(ctx, shape_dims(shape), dtype, float(np.float32(min.value)),
                           float(np.float32(max.value)), seed)


@register_kernel("uniform_raw", "CPU", dtypes=["bfloat16", "float32", "float64"])
def uniform_raw(ctx, shape: IntArray, dtype: DataType, min: Scalar, max: Scalar, seed: int,
                diag_num: int, diag_step: int, diag_val: float) -> Tensor:
    """``uniform``, then diag_val at flat positions i * diag_step + i for i < diag_num."""
    out = uniform_values(ctx, shape_dims(shape), dtype, float(np.float32(min.value)),
                          float(np.float32(max.value)), seed)
    return set_diagonal(ctx, out, diag_num, diag_step, diag_val)
