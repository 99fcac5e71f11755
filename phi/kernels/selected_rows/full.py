"""The ``full_sr`` kernel."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.scalar import Scalar
from phi.core.kernel import LoDTensor
from phi.core.registry import register_kernel
from phi.kernels.full import full
from phi.kernels.funcs.selected_rows import make_selected_rows


@register_kernel("full_sr", "CPU", dtypes=["bfloat16", "bool", "complex128", "complex64",
                                           "float16", "float32", "float64", "int16", "int32",
                                           "int64", "uint8"])
def full_sr(ctx, shape: IntArray, value: Scalar, dtype: DataType) -> LoDTensor:
    """A SelectedRows without rows whose value is full(shape, value); height shape[0]."""
    array = full(ctx, shape, value, dtype)
    return make_selected_rows(ctx, (), array.shape[0] if array.ndim else 0, array)
