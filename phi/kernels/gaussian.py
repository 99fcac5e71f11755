"""The ``gaussian`` kernel."""

from __future__ import annotations



from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.cpu_random import engine_for, normal
from phi.kernels.funcs.common import shape_dims, shape_numel

__all__ = ["gaussian"]


_FLOATS = ["float32", "float64"]


@register_kernel("gaussian", "CPU", dtypes=_FLOATS)
def gaussian(ctx, shape: IntArray, mean: float, std: float, seed: int, dtype: DataType
             ) -> Tensor:
    """N(mean, std) of ``shape`` (std::normal_distribution: Paddle's values for a seed)."""
    dims = shape_dims(shape)
    return normal(engine_for(seed), shape_numel(dims), mean, std, dtype.to_numpy()).reshape(dims)
