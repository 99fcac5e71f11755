"""KernelKey: (backend, layout, dtype), the key of one kernel registration and of one lookup."""

from __future__ import annotations

from typing import NamedTuple

from phi.common.backend import Backend, CustomBackend
from phi.common.data_type import DataType
from phi.common.layout import DataLayout

__all__ = ["KernelKey"]


class KernelKey(NamedTuple):
    """Immutable, hashable; prints as Paddle: ``(CPU, Undefined(AnyLayout), float32)``."""

    backend: Backend | CustomBackend
    layout: DataLayout
    dtype: DataType

    def __str__(self) -> str:
        return f"({self.backend}, {self.layout}, {self.dtype})"

    def with_backend(self, backend: Backend | CustomBackend) -> KernelKey:
        return KernelKey(backend, self.layout, self.dtype)

    def with_layout(self, layout: DataLayout) -> KernelKey:
        return KernelKey(self.backend, layout, self.dtype)
