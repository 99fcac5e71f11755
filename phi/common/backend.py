"""Backend: which device family (and library) a kernel is for, with Paddle 2.6.2's numbers.

Priority among several inputs is the largest value (CUSTOM > ... > GPUDNN > GPU > ONEDNN > CPU).
Custom device types registered at run time get their own ids above NUM_BACKENDS and print by name;
``Backend.CUSTOM`` is the wildcard a kernel registers under to serve every custom device.
"""

from __future__ import annotations

import enum
from typing import ClassVar

from phi.core.errors import NotFound

__all__ = ["Backend", "CustomBackend", "backend_from_name", "register_custom_backend"]


class Backend(enum.IntEnum):
    """Paddle 2.6.2 ``phi::Backend`` (phi/common/backend.h)."""

    ALL_BACKEND = 0  # == UNDEFINED; meaningful in registration and argument definitions only
    CPU = 1
    ONEDNN = 2
    GPU = 3
    GPUDNN = 4
    XPU = 5
    IPU = 6
    KPS = 7
    CUSTOM = 8
    NUM_BACKENDS = 9

    UNDEFINED = 0  # alias of ALL_BACKEND, as in Paddle

    # hash as the int (C speed): Enum's default hashes the member name in Python, and
    # these values key every kernel lookup
    __hash__ = int.__hash__

    def __str__(self) -> str:
        if self is Backend.ALL_BACKEND:
            return "Undefined(ALL_BACKEND)"
        return self.name

    @property
    def is_custom_device(self) -> bool:
        return False


class CustomBackend(int):
    """The backend id of one plug-in device type (value > NUM_BACKENDS), printed by its name."""

    __slots__ = ()

    _names: ClassVar[dict[int, str]] = {}

    @property
    def name(self) -> str:
        return CustomBackend._names[int(self)]

    @property
    def is_custom_device(self) -> bool:
        return True

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<CustomBackend.{self.name}: {int(self)}>"


_CUSTOM_BY_NAME: dict[str, CustomBackend] = {}


def register_custom_backend(device_type: str) -> CustomBackend:
    """Give ``device_type`` its backend id (idempotent: the same name keeps its id)."""
    found = _CUSTOM_BY_NAME.get(device_type)
    if found is not None:
        return found
    if device_type.upper() in Backend.__members__ or device_type.lower() in ("gpu", "cpu"):
        raise ValueError(f"custom device type {device_type!r} clashes with a built-in backend")
    value = int(Backend.NUM_BACKENDS) + 1 + len(_CUSTOM_BY_NAME)
    CustomBackend._names[value] = device_type
    backend = CustomBackend(value)
    _CUSTOM_BY_NAME[device_type] = backend
    return backend


_STRING_TO_BACKEND = {
    "undefined": Backend.ALL_BACKEND,
    "all_backend": Backend.ALL_BACKEND,
    "cpu": Backend.CPU,
    "onednn": Backend.ONEDNN,
    "mkldnn": Backend.ONEDNN,
    "gpu": Backend.GPU,
    "gpudnn": Backend.GPUDNN,
    "xpu": Backend.XPU,
    "ipu": Backend.IPU,
    "kps": Backend.KPS,
    "custom": Backend.CUSTOM,
}


def backend_from_name(name: str | Backend | CustomBackend) -> Backend | CustomBackend:
    """``"CPU"`` / ``"gpu"`` / a registered custom device type -> its backend."""
    if isinstance(name, (Backend, CustomBackend)):
        return name
    found = _STRING_TO_BACKEND.get(name.lower())
    if found is not None:
        return found
    custom = _CUSTOM_BY_NAME.get(name)
    if custom is not None:
        return custom
    known = sorted(b.name for b in Backend if b is not Backend.NUM_BACKENDS) + sorted(
        _CUSTOM_BY_NAME
    )
    raise NotFound(f"Unknown backend `{name}`. Known backends: {', '.join(known)}.")
