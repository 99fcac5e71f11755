"""The ``uniform`` and ``uniform_raw`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import cast_array
from phi.kernels.funcs.cpu_random import engine_for, uniform_real
from phi.kernels.funcs.common import shape_dims, shape_numel

__all__ = ["uniform", "uniform_raw"]


def _uniform_values(ctx, dims, dtype: DataType, low: float, high: float, seed: int):
    """UniformRealDistribution<T>: float for bfloat16 / float16, then converted as Paddle does."""
    n = shape_numel(dims)
    engine = engine_for(seed)
    if dtype in (DataType.BFLOAT16, DataType.FLOAT16):
        return cast_array(ctx, uniform_real(engine, n, low, high, np.float32).reshape(dims),
                          dtype)
    return uniform_real(engine, n, low, high, dtype.to_numpy()).reshape(dims)


@register_kernel("uniform", "CPU", dtypes=["bfloat16", "float32", "float64"])
def uniform(ctx, shape: IntArray, dtype: DataType, min: Scalar, max: Scalar, seed: int
            ) -> Tensor:
    """U(min, max) of ``shape``, Paddle's mt19937_64 stream for a non-zero seed."""
    return _uniform_values(ctx, shape_dims(shape), dtype, float(np.float32(min.value)),
                           float(np.float32(max.value)), seed)


@register_kernel("uniform_raw", "CPU", dtypes=["bfloat16", "float32", "float64"])
def uniform_raw(ctx, shape: IntArray, dtype: DataType, min: Scalar, max: Scalar, seed: int,
                diag_num: int, diag_step: int, diag_val: float) -> Tensor:
    """``uniform``, then diag_val at flat positions i * diag_step + i for i < diag_num."""
    out = _uniform_values(ctx, shape_dims(shape), dtype, float(np.float32(min.value)),
                          float(np.float32(max.value)), seed)
    return _diag(ctx, out, diag_num, diag_step, diag_val)


def _diag(ctx, out, diag_num: int, diag_step: int, diag_val: float):
    if diag_num <= 0:
        return out
    flat = out.reshape(-1)
    last = (diag_num - 1) * diag_step + (diag_num - 1)
    if last >= flat.size:
        raise InvalidArgument(f"The index of the diagonal elements is out of bounds: "
                              f"diag_num {diag_num}, diag_step {diag_step}, size {flat.size}.")
    pos = np.arange(diag_num) * (diag_step + 1)
    flat[pos] = cast_array(ctx, np.full(diag_num, diag_val, np.float32),
                           ctx.data_type(out))
    return flat.reshape(out.shape)
