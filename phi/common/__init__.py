"""phi.common: the enums and small value types every layer speaks (Paddle's phi/common)."""

from __future__ import annotations

from phi.common.backend import Backend, CustomBackend, backend_from_name
from phi.common.data_type import DataType, ProtoVarType
from phi.common.int_array import IntArray
from phi.common.layout import DataLayout
from phi.common.place import CPUPlace, CustomPlace, GPUPlace, Place, to_place
from phi.common.scalar import Scalar

__all__ = [
    "Backend",
    "CPUPlace",
    "CustomBackend",
    "CustomPlace",
    "DataLayout",
    "DataType",
    "GPUPlace",
    "IntArray",
    "Place",
    "ProtoVarType",
    "Scalar",
    "backend_from_name",
    "to_place",
]
