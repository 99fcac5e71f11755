"""The CPU device context: numpy."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.context import DeviceContext

__all__ = ["CPUContext"]


class CPUContext(DeviceContext):
    xp = np
    device = "cpu"

    def empty(self, shape, dtype: DataType) -> np.ndarray:
        return np.empty(tuple(shape), dtype=dtype.to_numpy())

    def full(self, shape, value, dtype: DataType) -> np.ndarray:
        return np.full(tuple(shape), value, dtype=dtype.to_numpy())

    def asarray(self, obj, dtype: DataType | None = None) -> np.ndarray:
        return np.asarray(obj, dtype=None if dtype is None else dtype.to_numpy())

    def astype(self, array, dtype: DataType) -> np.ndarray:
        return array.astype(dtype.to_numpy())

    def to_host(self, array) -> np.ndarray:
        return np.asarray(array)

    def from_host(self, array: np.ndarray) -> np.ndarray:
        return np.array(array, copy=True)
