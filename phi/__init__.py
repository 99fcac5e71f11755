"""phi: a functional kernel library in the style of PaddlePaddle's phi, on numpy / cupy.

    import phi
    out = phi.api.add(x, y)                 # eager API generated from phi/api/ops.yaml
    phi.set_flags({"FLAGS_dispatch_trace": 2})
    phi.kernel_factory().kernels_of("add")  # the registry

Importing phi registers its kernels (no I/O, no device probing).  phi imports nothing of
argmap, opmakers or fluid_compat.
"""

from __future__ import annotations

import phi.backends  # the device layer (installs phi.common.place.context_of)
import phi.kernels  # noqa: F401 - registration only
from phi.common import (
    Backend,
    CPUPlace,
    CustomPlace,
    DataLayout,
    DataType,
    GPUPlace,
    IntArray,
    Place,
    Scalar,
)
from phi.core.errors import (
    AlreadyExists,
    InvalidArgument,
    NotFound,
    PhiError,
    PreconditionNotMet,
    Unavailable,
    Unimplemented,
)
from phi.core.kernel_key import KernelKey
from phi.core.registry import (
    KernelFactory,
    KernelResult,
    kernel_factory,
    register_kernel,
    select_kernel_or_raise,
)
from phi.core.tensor import DenseTensor, MetaTensor
from phi.flags import get_flags, set_flags



def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # ~50 ms: asked for rarely

    try:
        return version("fluid-phi-bridge")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0.0.0+unknown"

__all__ = [
    "AlreadyExists",
    "Backend",
    "CPUPlace",
    "CustomPlace",
    "DataLayout",
    "DataType",
    "DenseTensor",
    "GPUPlace",
    "IntArray",
    "InvalidArgument",
    "KernelFactory",
    "KernelKey",
    "KernelResult",
    "MetaTensor",
    "NotFound",
    "PhiError",
    "Place",
    "PreconditionNotMet",
    "Scalar",
    "Unavailable",
    "Unimplemented",
    "__version__",
    "api",
    "get_flags",
    "kernel_factory",
    "register_kernel",
    "select_kernel_or_raise",
    "set_flags",
]


def __getattr__(name: str):
    if name == "__version__":
        globals()["__version__"] = found = _version()
        return found
    if name == "api":
        # import_module, not `from phi import api`: the latter asks this __getattr__ again
        import importlib

        return importlib.import_module("phi.api")
    raise AttributeError(name)
