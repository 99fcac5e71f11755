"""The KernelFactory (kernel name -> KernelKey -> Kernel), registration and kernel selection.

Only this module mutates the kernel table.  Registering the same (name, key) twice raises;
registration of one decorated function is all-or-nothing.  Selection results are cached per
(name, key, fallback flag) and the cache is dropped whenever the table changes.
"""

from __future__ import annotations

import functools
import importlib

from collections.abc import Callable, Iterable, Mapping

from phi.core import records

from phi import flags
from phi.common.backend import Backend, CustomBackend, backend_from_name
from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.core import trace
from phi.core.errors import AlreadyExists, InvalidArgument, NotFound
from phi.core.kernel import (
    ArgKind,
    Kernel,
    KernelArgsDef,
    TensorArgDef,
    lod_arguments,
    parse_kernel_args,
)
from phi.core.kernel_key import KernelKey
from phi.core.layout import Layout, RuleIndex

__all__ = [
    "KernelFactory",
    "KernelResult",
    "LookupStep",
    "kernel_factory",
    "register_kernel",
    "select_kernel_or_raise",
]

ALL_LAYOUT = DataLayout.ALL_LAYOUT
_FALLBACK_FLAG = "FLAGS_enable_api_kernel_fallback"
_LAZY_BUILD_FLAG = "FLAGS_lazy_kernel_build"


@records.frozen
class LookupStep:
    """One step of selection: its number in semantics.md, the key tried, whether it was there."""

    step: str
    key: KernelKey
    found: bool

    def __str__(self) -> str:
        return f"step {self.step}: {self.key} -> {'found' if self.found else 'not registered'}"


@records.frozen
class KernelResult:
    """What selection decided: the kernel, whether it is a CPU fallback, and how it got there."""

    kernel: Kernel
    has_fallback_cpu: bool
    requested: KernelKey
    steps: tuple[LookupStep, ...]


class KernelFactory:
    """Paddle's KernelFactory: ``name -> (KernelKey -> Kernel)``.

    The process-wide instance is :func:`kernel_factory`; tests build their own to control
    exactly which keys exist.
    """

    def __init__(self) -> None:
        self._kernels: dict[str, dict[KernelKey, Kernel]] = {}
        self._cache: dict[tuple, KernelResult] = {}
        self.generation = 0
        """Bumped on every change of the table, so that callers can drop cached decisions."""
        # lazy registration (the process-wide factory): the layout rule names the module of
        # a kernel name (phi.kernels' LAYOUT), imported on its first lookup
        self._index = RuleIndex()
        # deferred builds (the process-wide factory, FLAGS_lazy_kernel_build): kernel name ->
        # registrations of built-in modules whose Kernel objects are made on the name's first
        # lookup; empty when everything is built
        self._deferred: dict[str, list[_DeferredBuild]] = {}

    # -- lazy registration -----------------------------------------------------------------
    def set_layout(self, layout: Layout) -> None:
        """Register kernels on demand by the layout rule (phi.kernels' ``LAYOUT``): a lookup of
        a name imports the module the rule names for it first (once, under a lock, whichever
        thread asks first); listing the table imports every module of the package, so that no
        public call sees fewer kernels than an eager import registers."""
        self._index.set(layout)

    def _ensure(self, name: str) -> None:
        """Import the module registering ``name`` and build its deferred kernels unless done
        (cheap when nothing is left)."""
        index = self._index
        if not index.pending(name) and name not in self._deferred:
            return
        with index.lock:
            index.import_for(name)
            if name in self._deferred:
                self._build_deferred(name)

    def load_all(self) -> None:
        """Import every kernel module not imported yet (what an eager ``import phi`` did) and
        build every deferred kernel."""
        if self._index.done and not self._deferred:
            return
        with self._index.lock:  # one hold: a lookup meanwhile waits for both
            self._index.import_all()
            self.build_deferred()

    def defer(self, name: str, build: _DeferredBuild) -> None:
        """A built-in module's registration of ``name`` whose kernels ``build()`` makes (and
        checks) on the name's first lookup, or when anything lists the table."""
        self._deferred.setdefault(name, []).append(build)

    def build_deferred(self) -> None:
        """Build every deferred kernel now (its modules stay as they are)."""
        with self._index.lock:
            for name in list(self._deferred):
                self._build_deferred(name)

    def _build_deferred(self, name: str) -> None:
        # under self._index.lock.  The modules first: another thread still importing one of
        # them (a plain import, outside this lock) finishes its registrations of ``name``
        for module in {b.module for b in self._deferred.get(name, ())}:
            importlib.import_module(module)
        builds = list(self._deferred.get(name, ()))
        if not builds:
            return
        batch = [k for b in builds for k in b()]
        self._add(batch, builtin=True)
        # dropped only after the kernels are in (a reader's fast path then finds them)
        rest = self._deferred.get(name, [])[len(builds):]
        if rest:
            self._deferred[name] = rest
        else:
            self._deferred.pop(name, None)

    def is_pending(self, name: str) -> bool:
        """Whether a lookup of ``name`` would import its module first (for tests and tools)."""
        return self._index.pending(name)

    def deferred_pending(self) -> tuple[str, ...]:
        """Kernel names registered but not built yet (sorted; for tests and tools)."""
        return tuple(sorted(self._deferred))

    # -- the table -------------------------------------------------------------------------
    def register(self, kernels: Kernel | Iterable[Kernel]) -> None:
        """Add kernels; refuse a key that is already registered (none is added then)."""
        batch = [kernels] if isinstance(kernels, Kernel) else list(kernels)
        builtin = False
        if self._index.active:
            builtin = all(self._index.is_builtin(k.fn.__module__) for k in batch)
            if not builtin:
                # a plug-in's or a test's kernel meets the built-in keys of its name as before
                for name in {k.name for k in batch}:
                    self._ensure(name)
        self._add(batch, builtin)

    def _add(self, batch: list[Kernel], builtin: bool) -> None:
        seen: set[tuple[str, KernelKey]] = set()
        for k in batch:
            existing = self._kernels.get(k.name, {}).get(k.key)
            if existing is not None or (k.name, k.key) in seen:
                other = existing if existing is not None else "the same registration"
                raise AlreadyExists(
                    f"The kernel `{k.name}` with key {k.key} is already registered "
                    f"({other!r}); registering it again from {k.fn.__module__}."
                    f"{k.fn.__qualname__} is refused."
                )
            seen.add((k.name, k.key))
        for k in batch:
            self._kernels.setdefault(k.name, {})[k.key] = k
        if builtin:
            # a built-in module imported on demand adds what the table always promised: cached
            # selections of other names stay valid and callers' decisions need not be dropped
            self._cache.clear()
        else:
            self._changed()

    def unregister(self, name: str, key: KernelKey | None = None) -> None:
        """Remove one key of a kernel, or the whole kernel (used by tests and plug-ins)."""
        self._ensure(name)
        if name not in self._kernels:
            raise NotFound(f"The kernel `{name}` is not registered.")
        if key is None:
            del self._kernels[name]
        else:
            del self._kernels[name][key]
            if not self._kernels[name]:
                del self._kernels[name]
        self._changed()

    def _changed(self) -> None:
        self._cache.clear()
        self.generation += 1

    def is_builtin(self, fn: Callable) -> bool:
        """Whether kernel function ``fn`` is one of phi's own (defined in a built-in kernel
        module, as ``register`` tells them), not a plug-in's or a test's."""
        return self._index.is_builtin(getattr(fn, "__module__", None) or "")

    def has_kernel(self, name: str) -> bool:
        if name not in self._kernels and name not in self._deferred:
            self._ensure(name)  # the module the rule names, when not imported yet
        return name in self._kernels or name in self._deferred

    def names(self) -> list[str]:
        self.load_all()
        return sorted(self._kernels)

    def kernels_of(self, name: str) -> dict[KernelKey, Kernel]:
        """Every registered key of ``name`` (a copy); NotFound for an unknown name."""
        return dict(self._require(name))

    def _require(self, name: str) -> dict[KernelKey, Kernel]:
        self._ensure(name)
        found = self._kernels.get(name)
        if found is None:
            self.load_all()  # the hint names the closest of every kernel
            import difflib  # only for a hint (a cold-start import)

            close = difflib.get_close_matches(name, list(self._kernels), n=5)
            hint = f" Closest registered names: {', '.join(close)}." if close else ""
            raise NotFound(f"The kernel `{name}` is not registered.{hint}")
        return found

    # -- lookups ---------------------------------------------------------------------------
    def select_kernel(self, name: str, key: KernelKey) -> Kernel | None:
        """Static-graph lookup (Paddle's SelectKernel): exact key, ALL_LAYOUT, then CUSTOM for a
        plug-in device; None when absent.  No GPUDNN rewriting, no CPU fallback."""
        self._ensure(name)
        kernels = self._kernels.get(name)
        if kernels is None:
            return None
        found = kernels.get(key)
        if found is None and key.layout is not ALL_LAYOUT:
            found = kernels.get(KernelKey(key.backend, ALL_LAYOUT, key.dtype))
        if found is None and isinstance(key.backend, CustomBackend):
            found = kernels.get(KernelKey(Backend.CUSTOM, ALL_LAYOUT, key.dtype))
        return found

    def select_kernel_or_raise(self, name: str, key: KernelKey) -> KernelResult:
        """Select the kernel for ``key`` in the order of semantics.md, or raise NotFound.

        1. (GPUDNN, layout)   2. (GPUDNN, ALL_LAYOUT)     -- only for a GPUDNN key
        3. (backend, layout)  4. (backend, ALL_LAYOUT)
        4b. (CUSTOM, ALL_LAYOUT)                          -- only for a custom device
        5. (CPU, layout)      6. (CPU, ALL_LAYOUT)        -- fallback: non-CPU backend and
                                                             FLAGS_enable_api_kernel_fallback
        """
        allow_fallback = flags.FLAGS[_FALLBACK_FLAG]
        cache_key = (name, key, allow_fallback)
        hit = self._cache.get(cache_key)
        if hit is not None:
            return hit
        kernels = self._require(name)
        steps: list[LookupStep] = []

        def attempt(step: str, k: KernelKey) -> Kernel | None:
            found = kernels.get(k)
            steps.append(LookupStep(step, k, found is not None))
            return found

        backend, layout, dtype = key
        kernel = None
        # 1-2: cuDNN kernels first when the key asks for them; then plain GPU kernels
        if backend is Backend.GPUDNN:
            kernel = attempt("1", key)
            if kernel is None and layout is not ALL_LAYOUT:
                kernel = attempt("2", KernelKey(Backend.GPUDNN, ALL_LAYOUT, dtype))
            backend = Backend.GPU
        # 3-4: the backend itself, with the layout asked for, then any layout
        if kernel is None:
            kernel = attempt("3", KernelKey(backend, layout, dtype))
        if kernel is None and layout is not ALL_LAYOUT:
            kernel = attempt("4", KernelKey(backend, ALL_LAYOUT, dtype))
        # 4b: a plug-in device is served by kernels registered under the CUSTOM wildcard
        if kernel is None and isinstance(backend, CustomBackend):
            kernel = attempt("4b", KernelKey(Backend.CUSTOM, ALL_LAYOUT, dtype))
        fell_back = False
        if kernel is None:
            if backend is Backend.CPU:
                raise NotFound(self._not_found_text(name, key, kernels))
            if not allow_fallback:
                raise NotFound(
                    self._not_found_text(name, key, kernels)
                    + f" The current value of {_FALLBACK_FLAG}(bool, default true) is false. If"
                    " you want to fallback this kernel to CPU one, please set the flag true"
                    " before run again."
                )
            # 5-6: CPU fallback
            kernel = attempt("5", KernelKey(Backend.CPU, layout, dtype))
            if kernel is None and layout is not ALL_LAYOUT:
                kernel = attempt("6", KernelKey(Backend.CPU, ALL_LAYOUT, dtype))
            if kernel is None:
                raise NotFound(
                    self._not_found_text(name, key, kernels, " and fail to fallback to CPU one")
                )
            fell_back = True
        result = KernelResult(kernel, fell_back, key, tuple(steps))
        self._cache[cache_key] = result
        # the lookup steps are logged by the caller's trace line (phi.api.eager), on every
        # call, cached or not: logging them here too printed each step twice
        if trace.LEVEL >= 2 and fell_back:
            trace.logger.debug(
                "  missing %s kernel: %s, expected_kernel_key: %s, fallbacking to CPU one",
                key.backend, name, key,
            )
        return result

    def _not_found_text(
        self, name: str, key: KernelKey, kernels: Mapping[KernelKey, Kernel], extra: str = ""
    ) -> str:
        return (
            f"The kernel with key {key} of kernel `{name}` is not registered{extra}. "
            f"{_selection_hint(key, kernels)} Registered keys of `{name}`: "
            f"{', '.join(str(k) for k in _sorted_keys(kernels))}."
        )


def _sorted_keys(kernels: Iterable[KernelKey]) -> list[KernelKey]:
    return sorted(kernels, key=lambda k: (int(k.backend), int(k.layout), int(k.dtype)))


def _same_backend(a: Backend | CustomBackend, b: Backend | CustomBackend) -> bool:
    norm = {Backend.GPUDNN: Backend.GPU}
    if isinstance(a, CustomBackend) and b is Backend.CUSTOM:
        return True
    return norm.get(a, a) == norm.get(b, b)  # type: ignore[call-overload]


def _selection_hint(key: KernelKey, kernels: Mapping[KernelKey, Kernel]) -> str:
    """Paddle's KernelSelectionErrorMessage: wrong backend, wrong dtype, or the full list."""
    backends = []
    for k in _sorted_keys(kernels):
        if str(k.backend) not in backends:
            backends.append(str(k.backend))
    same = [k for k in _sorted_keys(kernels) if _same_backend(key.backend, k.backend)]
    if not same:
        return (
            f"Selected wrong Backend `{key.backend}`. Paddle support following Backends: "
            f"{', '.join(backends)}."
        )
    dtypes = []
    for k in same:
        if str(k.dtype) not in dtypes:
            dtypes.append(str(k.dtype))
    if all(k.dtype != key.dtype for k in same):
        return (
            f"Selected wrong DataType `{key.dtype}`. Paddle support following DataTypes: "
            f"{', '.join(dtypes)}."
        )
    layouts = sorted({str(k.layout) for k in same})
    return (
        f"Selected wrong DataLayout `{key.layout}`. Paddle support following DataLayouts: "
        f"{', '.join(layouts)}."
    )


_DEFAULT_FACTORY = KernelFactory()


def kernel_factory() -> KernelFactory:
    """The process-wide KernelFactory (Paddle's ``KernelFactory::Instance()``)."""
    return _DEFAULT_FACTORY


def select_kernel_or_raise(name: str, key: KernelKey) -> KernelResult:
    """Select from the process-wide factory; see :meth:`KernelFactory.select_kernel_or_raise`."""
    return _DEFAULT_FACTORY.select_kernel_or_raise(name, key)


def _on_flag(name: str, value: object) -> None:
    # the fallback flag is part of the cache key; nothing to drop, but keep the hook explicit
    if name == _FALLBACK_FLAG:
        _DEFAULT_FACTORY.generation += 1
    elif name == _LAZY_BUILD_FLAG and not value:
        _DEFAULT_FACTORY.build_deferred()


flags.on_change(_on_flag)


ArgOverrides = Mapping[str, object]


def register_kernel(
    name: str,
    backends: str | Backend | CustomBackend | Iterable[str | Backend | CustomBackend],
    dtypes: Iterable[str | DataType],
    layout: DataLayout = ALL_LAYOUT,
    *,
    input_defs: Mapping[str, ArgOverrides] | None = None,
    output_defs: Mapping[int, ArgOverrides] | None = None,
    factory: KernelFactory | None = None,
) -> Callable[[Callable], Callable]:
    """Register the decorated function as kernel ``name`` for every backend x dtype listed.

    ``input_defs`` adjusts single input arguments by parameter name and ``output_defs`` single
    outputs by position, as Paddle's registration bodies do: ``{"index": {"dtype":
    DataType.ALL_DTYPE}}`` for an index whose dtype is not the kernel's, ``{"shape": {"backend":
    Backend.ALL_BACKEND}}`` for a tensor that must stay where it is, ``{1: {"dtype":
    DataType.INT64}}`` for a fixed output dtype.
    """
    if isinstance(backends, (str, Backend, CustomBackend)):
        backends = [backends]
    backend_list = [backend_from_name(b) for b in backends]
    dtype_list = [DataType.from_any(d) for d in dtypes]
    if not backend_list or not dtype_list:
        raise InvalidArgument(f"register_kernel({name!r}): give at least one backend and dtype.")
    input_defs = dict(input_defs or {})
    output_defs = dict(output_defs or {})
    target = factory if factory is not None else _DEFAULT_FACTORY

    def decorate(fn: Callable) -> Callable:
        if (target._index.is_builtin(fn.__module__) and flags.FLAGS[_LAZY_BUILD_FLAG]):
            # a built-in module: signature parsing and the Kernel objects wait for a lookup
            target.defer(name, _DeferredBuild(fn.__module__, functools.partial(build, fn)))
        else:
            target.register(build(fn))
        return fn

    def build(fn: Callable) -> list[Kernel]:
        inputs, attributes, outputs = parse_kernel_args(fn)
        lod_ins, lod_outs = lod_arguments(fn)
        input_names = [n for n, _ in inputs]
        for arg in input_defs:
            if arg not in input_names:
                raise InvalidArgument(
                    f"register_kernel({name!r}): input_defs names {arg!r}, which is not an "
                    f"input of {fn.__qualname__} (inputs: {input_names})."
                )
        for idx in output_defs:
            if not isinstance(idx, int) or not 0 <= idx < len(outputs):
                raise InvalidArgument(
                    f"register_kernel({name!r}): output_defs index {idx!r} out of range "
                    f"({len(outputs)} outputs)."
                )
        batch = []
        for backend in backend_list:
            for dtype in dtype_list:
                key = KernelKey(backend, layout, dtype)
                in_defs = tuple(
                    _arg_def(n, kind, key, input_defs.get(n), n in lod_ins) for n, kind in inputs
                )
                out_defs = tuple(
                    _arg_def(f"out{i}", kind, key, output_defs.get(i), i in lod_outs)
                    for i, kind in enumerate(outputs)
                )
                args_def = KernelArgsDef(in_defs, tuple(attributes), out_defs)
                batch.append(Kernel(name, key, fn, args_def))
        return batch

    return decorate


class _DeferredBuild:
    """One deferred registration: the module that made it and the call that builds its
    kernels (argument parsing and checks included: a faulty built-in registration raises at
    the name's first lookup, or when the table is listed)."""

    __slots__ = ("build", "module")

    def __init__(self, module: str, build: Callable[[], list[Kernel]]) -> None:
        self.module = module
        self.build = build

    def __call__(self) -> list[Kernel]:
        return self.build()


_OVERRIDABLE = ("backend", "layout", "dtype")


@functools.cache
def _plain_arg_def(name: str, kind: ArgKind, key: KernelKey, lod: bool) -> TensorArgDef:
    """A TensorArgDef without overrides: frozen, so one object serves every kernel that has
    it (registration builds ~18,000 of them otherwise, a tenth of the import time)."""
    return TensorArgDef(name, kind, key.backend, key.layout, key.dtype, lod=lod)


def _arg_def(
    name: str, kind: ArgKind, key: KernelKey, override: ArgOverrides | None, lod: bool = False
) -> TensorArgDef:
    if not override:
        return _plain_arg_def(name, kind, key, lod)
    fields = {"backend": key.backend, "layout": key.layout, "dtype": key.dtype}
    if override:
        for field, value in override.items():
            if field not in _OVERRIDABLE:
                raise InvalidArgument(
                    f"Argument {name!r}: cannot override {field!r}; only {_OVERRIDABLE}."
                )
            fields[field] = value
    return TensorArgDef(name, kind, **fields, lod=lod)  # type: ignore[arg-type]
