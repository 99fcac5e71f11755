"""The GPU device context: cupy, imported when the first GPU context is made."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.place import Place
from phi.core.context import DeviceContext
from phi.core.errors import Unavailable

__all__ = ["GPUContext"]


class GPUContext(DeviceContext):
    def __init__(self, place: Place) -> None:
        super().__init__(place)
        try:
            import cupy
        except ImportError as exc:
            raise Unavailable(
                f"{place} needs cupy (pip install 'fluid-phi-bridge[gpu]'): {exc}"
            ) from exc
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except Exception as exc:  # CUDARuntimeError when no driver
            raise Unavailable(f"{place}: no CUDA device is usable ({exc}).") from exc
        if place.device_id >= count:
            raise Unavailable(f"{place}: only {count} CUDA device(s) present.")
        self.xp = cupy
        self._device = cupy.cuda.Device(place.device_id)

    def data_type(self, array) -> DataType:
        return DataType.from_numpy(array.dtype)

    def empty(self, shape, dtype: DataType):
        with self._device:
            return self.xp.empty(tuple(shape), dtype=dtype.to_numpy())

    def full(self, shape, value, dtype: DataType):
        with self._device:
            return self.xp.full(tuple(shape), value, dtype=dtype.to_numpy())

    def asarray(self, obj, dtype: DataType | None = None):
        with self._device:
            return self.xp.asarray(obj, dtype=None if dtype is None else dtype.to_numpy())

    def astype(self, array, dtype: DataType):
        with self._device:
            return array.astype(dtype.to_numpy())

    def to_host(self, array) -> np.ndarray:
        return self.xp.asnumpy(array)

    def from_host(self, array: np.ndarray):
        with self._device:
            return self.xp.asarray(array)

    def synchronize(self) -> None:
        self._device.synchronize()
