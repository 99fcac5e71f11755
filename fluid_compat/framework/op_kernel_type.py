"""OpKernelType: the key of fluid kernels (place, dtype, layout, library, customized value).

Equality compares places by *class* (device type; the device id is ignored), as Paddle's
``places_are_same_class`` does, so a kernel registered for GPUPlace serves every GPU.  It prints
as Paddle's logs do: ``{data_type[float]; data_layout[Undefined(AnyLayout)]; place[Place(cpu)];
library_type[PLAIN]}``, the form of ``expected_kernel_key`` in the corpus traces.
"""

from __future__ import annotations

import enum

from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.common.place import CPUPlace, Place
from phi.core.errors import InvalidArgument
from phi.core.kernel_key import KernelKey

__all__ = ["CPP_TYPE_NAMES", "LibraryType", "OpKernelType"]


class LibraryType(enum.Enum):
    PLAIN = "PLAIN"
    MKLDNN = "MKLDNN"
    CUDNN = "CUDNN"
    KP = "KP"

    @classmethod
    def parse(cls, text: str) -> LibraryType:
        """Paddle's StringToLibraryType: case-insensitive, PLAIN/CPU/CUDA/XPU mean PLAIN."""
        t = text.upper()
        if t in ("PLAIN", "CPU", "CUDA", "XPU"):
            return cls.PLAIN
        if t in cls.__members__:
            return cls[t]
        raise InvalidArgument(f"Unknown library type {text!r}.")


# How Paddle's logs name each element type (C++ type names)
CPP_TYPE_NAMES = {
    DataType.BOOL: "bool",
    DataType.UINT8: "uint8_t",
    DataType.INT8: "int8_t",
    DataType.INT16: "int16_t",
    DataType.INT32: "int",
    DataType.INT64: "int64_t",
    DataType.FLOAT32: "float",
    DataType.FLOAT64: "double",
    DataType.FLOAT16: "::paddle::platform::float16",
    DataType.BFLOAT16: "::paddle::platform::bfloat16",
    DataType.COMPLEX64: "::paddle::platform::complex<float>",
    DataType.COMPLEX128: "::paddle::platform::complex<double>",
    DataType.UNDEFINED: "undefined",
}


class OpKernelType:
    """The fluid kernel key.  Immutable; hash and equality ignore the device id."""

    __slots__ = ("_key", "customized_type_value", "dtype", "layout", "library", "place")

    def __init__(
        self,
        dtype: DataType,
        place: Place,
        layout: DataLayout = DataLayout.ALL_LAYOUT,
        library: LibraryType = LibraryType.PLAIN,
        customized_type_value: int = 0,
    ) -> None:
        self.dtype = dtype
        self.place = place
        self.layout = layout
        self.library = library
        self.customized_type_value = customized_type_value
        self._key = (dtype, place.device_type, layout, library, customized_type_value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpKernelType) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def with_place(self, place: Place) -> OpKernelType:
        return OpKernelType(
            self.dtype, place, self.layout, self.library, self.customized_type_value
        )

    def to_phi_key(self) -> KernelKey:
        """Paddle's TransOpKernelTypeToPhiKernelKey: library picks GPUDNN / ONEDNN."""
        backend = self.place.backend
        if self.library is LibraryType.CUDNN and backend is Backend.GPU:
            backend = Backend.GPUDNN
        elif self.library is LibraryType.MKLDNN and backend is Backend.CPU:
            backend = Backend.ONEDNN
        return KernelKey(backend, self.layout, self.dtype)

    @classmethod
    def from_phi_key(cls, key: KernelKey, place: Place) -> OpKernelType:
        library = LibraryType.PLAIN
        if key.backend is Backend.GPUDNN:
            library = LibraryType.CUDNN
        elif key.backend is Backend.ONEDNN:
            library = LibraryType.MKLDNN
        if key.backend is Backend.CPU:
            place = CPUPlace()
        return cls(key.dtype, place, key.layout, library)

    def __str__(self) -> str:
        return (
            f"{{data_type[{CPP_TYPE_NAMES.get(self.dtype, str(self.dtype))}]; "
            f"data_layout[{self.layout}]; place[{self.place}]; "
            f"library_type[{self.library.value}]}}"
        )

    __repr__ = __str__
