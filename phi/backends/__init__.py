"""Device contexts per place: CPU (numpy), GPU (cupy, imported lazily) and plug-in devices.

``get_context(place)`` returns the one context of a place (created on first use, never at
import).  A plug-in device type calls :func:`register_custom_device` with a factory that makes
its context; it then gets its own backend id (see ``phi.common.backend``) and may register
kernels under that backend (or under ``Backend.CUSTOM`` to serve every plug-in device).
"""

from __future__ import annotations

from collections.abc import Callable

from phi.backends.cpu import CPUContext
from phi.common.backend import Backend, register_custom_backend
from phi.common.place import CustomPlace, Place
from phi.common.place import install_context_lookup
from phi.core.context import DeviceContext
from phi.core.errors import NotFound, Unavailable

__all__ = ["DeviceContext", "get_context", "register_custom_device", "unregister_custom_device"]

_CONTEXTS: dict[Place, DeviceContext] = {}
_CUSTOM_FACTORIES: dict[str, Callable[[Place], DeviceContext]] = {}


def register_custom_device(device_type: str, factory: Callable[[Place], DeviceContext]):
    """Plug a device type in: ``factory(place)`` makes its DeviceContext.  Returns its backend."""
    backend = register_custom_backend(device_type)
    _CUSTOM_FACTORIES[device_type] = factory
    for place in [p for p in _CONTEXTS if p.device_type == device_type]:
        del _CONTEXTS[place]
    return backend


def unregister_custom_device(device_type: str) -> None:
    _CUSTOM_FACTORIES.pop(device_type, None)
    for place in [p for p in _CONTEXTS if p.device_type == device_type]:
        del _CONTEXTS[place]


def get_context(place: Place) -> DeviceContext:
    """The device context of ``place``, created on first use."""
    ctx = _CONTEXTS.get(place)
    if ctx is not None:
        return ctx
    if place.backend is Backend.CPU:
        ctx = CPUContext(place)
    elif place.backend is Backend.GPU:
        from phi.backends.gpu import GPUContext  # cupy is imported only here

        ctx = GPUContext(place)
    elif isinstance(place, CustomPlace):
        factory = _CUSTOM_FACTORIES.get(place.device_type)
        if factory is None:
            known = ", ".join(sorted(_CUSTOM_FACTORIES)) or "none"
            raise NotFound(
                f"No device context for {place}: device type `{place.device_type}` is not "
                f"registered (registered custom devices: {known}). Call "
                "phi.backends.register_custom_device first."
            )
        ctx = factory(place)
    else:
        raise Unavailable(f"No device context implementation for {place}.")
    _CONTEXTS[place] = ctx
    return ctx


install_context_lookup(get_context)
