"""Fluid kernel registration: op type -> OpKernelType -> kernel (Paddle's AllOpKernels()).

A fluid kernel is an object with ``compute(ctx)`` (ctx: an ExecutionContext) that reads inputs
and attributes by slot name and writes outputs with ``ctx.set_output``.  One registration covers
a place type and a list of dtypes; the same (op, OpKernelType) twice raises.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from fluid_compat.framework.op_kernel_type import LibraryType, OpKernelType
from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.common.place import CPUPlace, GPUPlace, Place
from phi.core.errors import AlreadyExists, InvalidArgument
from phi.core.layout import Layout, RuleIndex

__all__ = [
    "FLUID_REGISTRY_GENERATION",
    "FluidKernel",
    "all_fluid_kernels",
    "find_fluid_kernel",
    "fluid_kernels_of",
    "ensure_loaded",
    "has_fluid_kernel",
    "load_all_fluid_kernels",
    "register_fluid_kernel",
    "set_layout",
    "unregister_fluid_kernels",
]

_KERNELS: dict[str, dict[OpKernelType, FluidKernel]] = {}
FLUID_REGISTRY_GENERATION = [0]
"""Bumped on every change, so that cached kernel decisions can be dropped."""

# lazy registration, as phi's KernelFactory does it: the first lookup of an op type imports the
# module the layout rule names for it (fluid_kernels/__init__.py sets the rule)
_INDEX = RuleIndex()


def set_layout(layout: Layout) -> None:
    """Import the module ``layout`` names for an op type on that type's first lookup; listing
    (`all_fluid_kernels`) imports every module of its package."""
    _INDEX.set(layout)


def ensure_loaded(op_type: str) -> None:
    """Import the module that registers the kernels and declares the hooks of ``op_type``
    (once)."""
    _INDEX.ensure(op_type)


def load_all_fluid_kernels() -> None:
    """Import every fluid kernel module not imported yet."""
    _INDEX.import_all()


class FluidKernel:
    """Base of fluid kernels: subclasses implement ``compute(self, ctx)``.

    ``kernel_type`` is the OpKernelType this instance was registered under.
    """

    kernel_type: OpKernelType

    def compute(self, ctx) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}{self.kernel_type}"


_PLACES = {"CPU": CPUPlace(), "GPU": GPUPlace(0)}


def register_fluid_kernel(
    op_type: str,
    place: str | Place = "CPU",
    dtypes: Iterable[str | DataType] = ("float32",),
    library: str = "PLAIN",
    layout: DataLayout = DataLayout.ALL_LAYOUT,
) -> Callable[[type], type]:
    """Register the decorated FluidKernel subclass for ``op_type`` on ``place`` for each dtype."""
    if isinstance(place, str):
        if place.upper() not in _PLACES:
            raise InvalidArgument(f"register_fluid_kernel({op_type!r}): place must be CPU or GPU "
                                  f"or a Place, got {place!r}.")
        place = _PLACES[place.upper()]
    lib = LibraryType.parse(library)
    if lib is LibraryType.MKLDNN:
        layout = DataLayout.ONEDNN
    dtype_list = [DataType.from_any(d) for d in dtypes]

    def decorate(cls: type) -> type:
        builtin = _INDEX.is_builtin(cls.__module__)
        if not builtin:
            _INDEX.ensure(op_type)  # a plug-in's kernel meets the built-in ones as before
        table = _KERNELS.setdefault(op_type, {})
        new = []
        for dt in dtype_list:
            kt = OpKernelType(dt, place, layout, lib)
            if kt in table:
                raise AlreadyExists(
                    f"The fluid kernel of op `{op_type}` for {kt} is already registered "
                    f"({table[kt]!r}); {cls.__qualname__} is refused."
                )
            kernel = cls()
            kernel.kernel_type = kt
            new.append((kt, kernel))
        for kt, kernel in new:
            table[kt] = kernel
        if not builtin:  # a built-in one imported on demand changes no earlier decision
            FLUID_REGISTRY_GENERATION[0] += 1
        return cls

    return decorate


def fluid_kernels_of(op_type: str) -> dict[OpKernelType, FluidKernel]:
    _INDEX.ensure(op_type)
    return dict(_KERNELS.get(op_type, {}))


def has_fluid_kernel(op_type: str) -> bool:
    _INDEX.ensure(op_type)
    return bool(_KERNELS.get(op_type))


def find_fluid_kernel(op_type: str, kernel_type: OpKernelType) -> FluidKernel | None:
    _INDEX.ensure(op_type)
    table = _KERNELS.get(op_type)
    return None if table is None else table.get(kernel_type)


def all_fluid_kernels() -> dict[str, dict[OpKernelType, FluidKernel]]:
    load_all_fluid_kernels()
    return {k: dict(v) for k, v in _KERNELS.items()}


def unregister_fluid_kernels(op_type: str, kernel_types: Iterable[OpKernelType] | None = None
                             ) -> None:
    """Remove kernels (tests and migration tooling)."""
    _INDEX.ensure(op_type)
    table = _KERNELS.get(op_type, {})
    for kt in list(table if kernel_types is None else kernel_types):
        table.pop(kt, None)
    if not table:
        _KERNELS.pop(op_type, None)
    FLUID_REGISTRY_GENERATION[0] += 1
