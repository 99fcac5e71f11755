"""The ``truncated_gaussian_random`` kernel."""

from __future__ import annotations

import math

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.cpu_random import engine_for, uniform_real
from phi.kernels.funcs.common import shape_dims, shape_numel
from phi.kernels.funcs.special import ndtri64

__all__ = ["truncated_gaussian_random"]


_FLOATS = ["float32", "float64"]


@register_kernel("truncated_gaussian_random", "CPU", dtypes=_FLOATS)
def truncated_gaussian_random(ctx, shape: list[int], mean: float, std: float, seed: int,
                              dtype: DataType) -> Tensor:
    """N(mean, std) truncated to mean +- 2 std, by inverse CDF of u ~ U(FLT_MIN, 1) as
    Paddle's TruncatedNormal does."""
    dims = shape_dims(shape)
    t = np.dtype(dtype.to_numpy())
    u = uniform_real(engine_for(seed), shape_numel(dims), float(np.finfo(np.float32).tiny), 1.0, t)
    a = 0.5 * (1.0 + math.erf(-2.0 / math.sqrt(2.0)))
    b = 0.5 * (1.0 + math.erf(2.0 / math.sqrt(2.0)))
    p = a + (b - a) * u.astype(np.float64)
    # sqrt(2) * erfinv(2p - 1) = ndtri(p)
    return (ndtri64(np, p) * std + mean).astype(t).reshape(dims)
