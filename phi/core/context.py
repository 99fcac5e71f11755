"""DeviceContext: one device's array namespace, allocation and host copies.

Kernels compute with ``ctx.xp`` (numpy, cupy, or a plug-in device's namespace) and create arrays
through the context (``ctx.full``, ``ctx.empty``, ``ctx.asarray``) so that the arrays land on the
right device.  Data moves between devices only through :meth:`to_host` / :meth:`from_host` (and
an optional direct :meth:`copy_from`), called by the transform module, never by kernels.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from phi.common.data_type import DataType
from phi.common.place import Place

__all__ = ["DeviceContext"]



class DeviceContext:
    """Base class; a backend subclasses it and sets ``xp``.

    The defaults suit any namespace that follows the array API standard and accepts a
    ``device=`` keyword on creation functions.
    """

    xp: Any = None
    device: Any = None  # the namespace's device object, passed to creation functions

    def __init__(self, place: Place) -> None:
        self.place = place
        self.backend = place.backend

    # -- dtypes ------------------------------------------------------------------------------
    def xp_dtype(self, dtype: DataType) -> Any:
        """The namespace's dtype object for a phi DataType."""
        return dtype.to_numpy()

    def data_type(self, array: Any) -> DataType:
        """The phi DataType of an array of this namespace."""
        return DataType.from_numpy(array.dtype)

    # -- creation ----------------------------------------------------------------------------
    def empty(self, shape, dtype: DataType) -> Any:
        return self.xp.empty(tuple(shape), dtype=self.xp_dtype(dtype), device=self.device)

    def full(self, shape, value, dtype: DataType) -> Any:
        return self.xp.full(tuple(shape), value, dtype=self.xp_dtype(dtype), device=self.device)

    def asarray(self, obj, dtype: DataType | None = None) -> Any:
        xdt = None if dtype is None else self.xp_dtype(dtype)
        return self.xp.asarray(obj, dtype=xdt, device=self.device)

    def astype(self, array, dtype: DataType) -> Any:
        return self.xp.astype(array, self.xp_dtype(dtype))

    def lod_tensor(self, array, lod=()):
        """An output with its LoD, as a kernel that sets ``out->set_lod()`` returns it."""
        from phi.core.lod import normalize
        from phi.core.tensor import DenseTensor

        return DenseTensor(array, self.data_type(array), self.place, lod=normalize(lod))

    # -- host copies ---------------------------------------------------------------------------
    def to_host(self, array) -> np.ndarray:
        """Copy an array of this device to a numpy array."""
        raise NotImplementedError

    def from_host(self, array: np.ndarray) -> Any:
        """Copy a numpy array to this device."""
        raise NotImplementedError

    def copy_from(self, array, src: DeviceContext) -> Any:
        """Copy ``array`` of device ``src`` here; the default goes through the host."""
        return self.from_host(src.to_host(array))

    def synchronize(self) -> None:
        """Wait for queued work (no-op for synchronous devices)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.place})"
