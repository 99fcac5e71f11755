"""A second device for tests: array-api-strict's non-default device ``Device("device1")``.

array-api-strict raises when arrays of two devices meet, so any missing transfer in dispatch
fails loudly.  The device is plugged in as the custom device type ``device1`` with a context of
its own; only a few kernels are registered on it, the rest must fall back to CPU.
"""

from __future__ import annotations

import numpy as np

from phi.backends import register_custom_device
from phi.common import CustomPlace, DataType, Place
from phi.core.context import DeviceContext

try:
    import array_api_strict as xps
except ImportError:  # pragma: no cover - the test extra is not installed
    xps = None

DEVICE_TYPE = "device1"


class StrictContext(DeviceContext):
    """DeviceContext over array-api-strict arrays on its ``device1``."""

    def __init__(self, place: Place) -> None:
        super().__init__(place)
        self.xp = xps
        self.device = xps.Device("device1")
        self._cpu = xps.Device("CPU_DEVICE")
        self._dtypes = {
            DataType.BOOL: xps.bool, DataType.INT8: xps.int8, DataType.INT16: xps.int16,
            DataType.INT32: xps.int32, DataType.INT64: xps.int64, DataType.UINT8: xps.uint8,
            DataType.FLOAT32: xps.float32, DataType.FLOAT64: xps.float64,
            DataType.COMPLEX64: xps.complex64, DataType.COMPLEX128: xps.complex128,
        }
        self._back = {v: k for k, v in self._dtypes.items()}

    def xp_dtype(self, dtype: DataType):
        return self._dtypes[dtype]

    def data_type(self, array) -> DataType:
        return self._back[array.dtype]

    def to_host(self, array) -> np.ndarray:
        assert array.device == self.device, f"array on {array.device}, expected device1"
        return np.asarray(array.to_device(self._cpu))

    def from_host(self, array: np.ndarray):
        assert isinstance(array, np.ndarray)
        return xps.asarray(array, device=self.device)


def plug_in() -> CustomPlace:
    """Register the device type (idempotent) and return its place."""
    register_custom_device(DEVICE_TYPE, StrictContext)
    return CustomPlace(DEVICE_TYPE, 0)
