"""Helpers shared by the element-wise unary kernels (activation, clip, complex): scalar
attribute values and the output definition that keeps the input's dtype."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.common.scalar import Scalar

__all__ = ["SAME_DTYPE_OUT", "scalar_value"]


def scalar_value(value):
    return value.value if isinstance(value, Scalar) else value


SAME_DTYPE_OUT = {d: {0: {"dtype": d}} for d in (DataType.FLOAT32, DataType.FLOAT64,
                                                  DataType.COMPLEX64, DataType.COMPLEX128)}
