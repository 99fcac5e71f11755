"""Places: where a tensor lives.  ``Place -> Backend`` is ``place.backend``.

Places compare by (kind, device type, device id) and hash, so they can key caches.  They print as
Paddle prints them: ``Place(cpu)``, ``Place(gpu:0)``, ``Place(device1:0)``.
"""

from __future__ import annotations

from phi.common.backend import Backend, CustomBackend, register_custom_backend
from phi.core.errors import InvalidArgument, Unavailable

__all__ = ["CPUPlace", "CustomPlace", "GPUPlace", "Place", "context_of", "install_context_lookup",
           "to_place"]


class Place:
    """Base of the concrete places; ``backend`` is the phi backend of kernels for this place."""

    __slots__ = ("_hash", "backend", "device_id", "device_type")

    def __init__(self, device_type: str, device_id: int, backend: Backend | CustomBackend):
        self.device_type = device_type
        self.device_id = device_id
        self.backend = backend
        self._hash = hash((device_type, device_id))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Place)
            and self.device_type == other.device_type
            and self.device_id == other.device_id
        )

    def __hash__(self) -> int:
        return self._hash

    def is_same_class(self, other: Place) -> bool:
        """Paddle's ``places_are_same_class``: same device type, device id ignored."""
        return self.device_type == other.device_type

    def __str__(self) -> str:
        return f"Place({self.device_type}:{self.device_id})"

    __repr__ = __str__


class CPUPlace(Place):
    __slots__ = ()

    def __init__(self) -> None:
        super().__init__("cpu", 0, Backend.CPU)

    def __str__(self) -> str:
        return "Place(cpu)"

    __repr__ = __str__


class GPUPlace(Place):
    __slots__ = ()

    def __init__(self, device_id: int = 0) -> None:
        super().__init__("gpu", int(device_id), Backend.GPU)


class CustomPlace(Place):
    """A place of a plug-in device type; its backend is that type's own backend id."""

    __slots__ = ()

    def __init__(self, device_type: str, device_id: int = 0) -> None:
        super().__init__(device_type, int(device_id), register_custom_backend(device_type))


def to_place(value: object) -> Place:
    """A Place, or a string ``"cpu"``, ``"gpu"``, ``"gpu:1"``, ``"device1:0"``."""
    if isinstance(value, Place):
        return value
    if not isinstance(value, str) or not value:
        raise InvalidArgument(
            f"Expected a Place or a place string like 'cpu', 'gpu:0', 'device1:0'; got {value!r}."
        )
    kind, _, index = value.partition(":")
    try:
        device_id = int(index) if index else 0
    except ValueError:
        raise InvalidArgument(f"Bad device id in place string {value!r}.") from None
    kind_l = kind.lower()
    if kind_l == "cpu":
        return CPUPlace()
    if kind_l in ("gpu", "cuda"):
        return GPUPlace(device_id)
    return CustomPlace(kind, device_id)


_LOOKUP: list = []  # phi.backends.get_context, installed by phi.backends when it is imported


def install_context_lookup(lookup) -> None:
    """``lookup(place) -> DeviceContext`` (phi.backends installs its ``get_context``): what
    phi.core's tensors ask for a device's context, so that phi.core never imports the device
    layer."""
    _LOOKUP[:] = [lookup]


def context_of(place: Place):
    """The device context of ``place`` (phi.backends' table)."""
    if not _LOOKUP:
        raise Unavailable(f"No device context for {place}: the device layer is not loaded "
                          "(import phi.backends; importing phi does).")
    return _LOOKUP[0](place)
