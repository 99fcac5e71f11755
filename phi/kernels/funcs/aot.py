"""The compiled loops built ahead of time (numba.pycc): the same loops without numba at run time.

numba's JIT path (``phi.kernels.funcs._jit_loops``) costs every process that uses it about 110 MB of
memory (``import numba`` about 64 MB, LLVM about 46 MB more on the first compiled call, even
when the machine code comes from numba's cache) and about 0.7 s to load.  ``build`` compiles
the same functions once, with numba's ahead-of-time compiler, into a plain CPython extension
module in a cache directory; ``load`` imports it in about 2 ms and 10 MB, numba not imported.
``jit.kernels()`` prefers it when ``FLAGS_kernel_aot`` is on (the default) and a build matches
this machine, and uses the JIT path otherwise.  Build it with ``fluid-compat build-kernels``
(about 30 s, a C compiler needed); nothing builds it behind the caller's back.

A build is keyed by ``tag()``: the loops' source, the export table below, numpy's version,
the Python ABI and the CPU's model and feature flags (the code is compiled for this CPU, as
numba's JIT does).  A build of another key is never loaded: editing ``_jit_loops.py`` or moving
the cache to another CPU falls back to the JIT path until the next build.

Each exported function calls the numba dispatcher of the loop (compiled with that loop's own
options, e.g. bn_affine_act's numpy error model), for float32 and float64 and the array
layouts the kernels pass (``EXPORTS``); its CPython wrapper releases the GIL, as the
dispatchers' ``nogil`` does.  The same LLVM code of the same source: results are bit for bit
those of the JIT path (tests compare them).  An argument the export does not take (another
dtype, ndim, layout, or a misaligned array) goes to the JIT path, so the module behaves like
``_jit_loops``.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
from phi import flags

__all__ = ["CACHE_ENV", "DTYPES", "EXPORTS", "FINISHING_STEPS", "FLAG", "KEEP_BUILDS", "build",
           "build_showing_progress", "building", "cache_dir", "called", "load", "module_path",
           "prune", "tag"]

FLAG = "FLAGS_kernel_aot"
FLAGS = flags.FLAGS

CACHE_ENV = "FLUID_PHI_KERNEL_CACHE"
"""Environment variable naming the directory of the builds (default: the user's cache
directory, ``$XDG_CACHE_HOME/fluid-phi-bridge`` or ``~/.cache/fluid-phi-bridge``)."""

#: argument kinds of each loop: "C<n>" an n-D C-contiguous array of the loop's dtype, "A<n>" an
#: n-D array of the loop's dtype with any strides (Winograd's planes are views with a gap
#: between planes), "i" int64, "f" float64, "s" a scalar of the loop's dtype
EXPORTS: dict[str, tuple[str, ...]] = {
    "depthwise": ("C4", "C3", "C4") + ("i",) * 8,
    "depthwise_3x3_small": ("C4", "C3", "C4") + ("i",) * 8,
    "winograd_input": ("C4", "A3", "i", "i", "i", "i"),
    "winograd_output": ("A3", "C4", "i", "i", "i", "i"),
    "winograd_weight": ("C4", "A3"),
    "max_pool2d": ("C4", "C4") + ("i",) * 6 + ("s",),
    "bn_affine_act": ("C3",) + ("C1",) * 4 + ("f", "i", "i", "i"),
    "bn_affine_add_act": ("C3",) + ("C1",) * 4 + ("f", "C3", "i", "i", "i"),
    "im2col": ("C4", "C3") + ("i",) * 11,
    "layer_norm": ("C2", "C1", "C1", "f", "C2", "C1", "C1", "i"),
    "gelu_erf": ("C1", "C1"),
    "softmax": ("C2", "C2", "s"),
}

#: the dtypes the compiled loops take: native-byte-order float32 / float64 (numba refuses
#: other byte orders; an array of another dtype takes the numpy path); ``jit.DTYPES``
DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_SCALARS = {"i": "int64", "f": "float64"}
_LOOPS_SOURCE = Path(__file__).with_name("_jit_loops.py")


def cache_dir() -> Path:
    """Where builds are written and looked for (``CACHE_ENV``, else the user's cache)."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fluid-phi-bridge"


def _cpu() -> str:
    """The CPU's model and feature flags (what code compiled for this CPU relies on)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            lines = [ln for ln in f.read(65536).splitlines()
                     if ln.startswith(("model name", "flags", "Features", "CPU part"))]
        if lines:
            return "\n".join(dict.fromkeys(lines))  # each core repeats them
    except OSError:
        pass
    import platform

    return platform.processor()


def tag() -> str:
    """The key of a build for this source, numpy, Python and CPU (module doc): CRC-32 and
    Adler-32 of those parts, 64 bits (a key that changes with them, not a guard against
    tampering: the cache is the user's own directory).  zlib, not hashlib: importing hashlib
    (OpenSSL) cost ~6 ms of every process's first compiled call, a cold start's first run."""
    import platform
    import zlib

    data = b"\0".join((_LOOPS_SOURCE.read_bytes(), repr(sorted(EXPORTS.items())).encode(),
                       np.__version__.encode(), sys.implementation.cache_tag.encode(),
                       platform.machine().encode(), _cpu().encode()))
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def _module_name(key: str) -> str:
    return f"_phi_loops_{key}"


def module_path(directory: Path | None = None, key: str | None = None) -> Path:
    """The file of the build for ``key`` (default: this machine's ``tag()``)."""
    from importlib.machinery import EXTENSION_SUFFIXES

    return ((directory or cache_dir()) /
            f"{_module_name(key or tag())}{EXTENSION_SUFFIXES[0]}")


def _signature(kinds: tuple[str, ...], dtype: str) -> str:
    args = []
    for kind in kinds:
        if kind in _SCALARS:
            args.append(_SCALARS[kind])
        elif kind == "s":
            args.append(dtype)
        else:
            dims = int(kind[1:])
            last = "::1" if kind[0] == "C" else ":"
            args.append(f"{dtype}[{', '.join([':'] * (dims - 1) + [last])}]")
    return f"void({', '.join(args)})"


def _forwarder(name: str, arity: int, loop):
    """A plain function calling the dispatcher ``loop`` (numba compiles the call with the
    loop's own options), to export under its own signatures."""
    params = ", ".join(f"a{i}" for i in range(arity))
    namespace: dict = {}
    exec(f"def {name}({params}):\n    _loop({params})\n", {"_loop": loop}, namespace)
    return namespace[name]


_BUILDING = [0]  # builds under way in this process (jit's compile notice keeps quiet then)
_CALLED = [False]  # an export of a loaded build ran (jit.path_taken)


def building() -> bool:
    """Whether ``build`` is compiling in this process."""
    return _BUILDING[0] > 0


def called() -> bool:
    """Whether a loaded build's export has run in this process (``jit.path_taken``)."""
    return _CALLED[0]


#: the steps of a build after its exports, with their weights in ``build``'s progress (about
#: their share of the time: ~0.8 s an export, ~3 s LLVM's optimisation of the module, ~5 s its
#: machine code, the C glue's compile and the link)
FINISHING_STEPS = (("optimising", 4), ("machine code, C glue, link", 6))


def build(directory: Path | None = None,
          progress: Callable[[int, int, str], None] | None = None) -> Path:
    """Compile the loops into this machine's build under ``directory`` (default
    ``cache_dir()``) and return its path; an existing build of the same key is replaced.
    Needs numba and a C compiler; written under a temporary name and renamed into place,
    so a concurrent ``load`` sees the old file or the new one, never half of one.

    ``progress(done, total, step)``, when given, is called as the build goes: ``done`` of
    ``total`` units (an export each, then ``FINISHING_STEPS``' weights), ``step`` naming what
    runs next ("depthwise float32", "optimising", ...; "" at the end)."""
    _BUILDING[0] += 1
    try:
        return _build(directory, progress or (lambda done, total, step: None))
    finally:
        _BUILDING[0] -= 1


def _build(directory: Path | None, progress: Callable[[int, int, str], None]) -> Path:
    import tempfile

    import numba.pycc.compiler as pycc_compiler
    from numba.pycc import CC

    from phi.kernels.funcs import _jit_loops

    key = tag()
    target = module_path(directory, key)
    target.parent.mkdir(parents=True, exist_ok=True)
    cc = CC(_module_name(key))
    cc.target_cpu = "host"
    cc.verbose = False
    for name, kinds in EXPORTS.items():
        forward = _forwarder(name, len(kinds), getattr(_jit_loops, name))
        for dtype in DTYPES:
            cc.export(f"{name}_{dtype.name}", _signature(kinds, dtype.name))(forward)

    class _GilReleasingFlags(pycc_compiler.Flags):
        """pycc's compile flags with the CPython wrappers releasing the GIL (``nogil``)."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.release_gil = True

    # progress: pycc compiles the exports one by one (compile_extra, a name of its module),
    # then optimises and emits the module (ModuleCompiler._cull_exports, then the rest)
    exports = len(EXPORTS) * len(DTYPES)
    total = exports + sum(weight for _, weight in FINISHING_STEPS)
    done = [0]
    compile_extra = pycc_compiler.compile_extra
    cull_exports = pycc_compiler.ModuleCompiler._cull_exports

    # the exports in pycc's order (by symbol)
    order = [symbol.rpartition("_")[0] + " " + symbol.rpartition("_")[2] for symbol in
             sorted(f"{name}_{dtype.name}" for name in EXPORTS for dtype in DTYPES)]

    def counted_compile(*args, **kwargs):
        result = compile_extra(*args, **kwargs)
        done[0] += 1
        progress(done[0], total, order[done[0]] if done[0] < exports
                 else FINISHING_STEPS[0][0])
        return result

    def counted_cull(self):
        result = cull_exports(self)
        done[0] = exports + FINISHING_STEPS[0][1]
        progress(done[0], total, FINISHING_STEPS[1][0])
        return result

    progress(0, total, order[0])
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as tmp:
        cc.output_dir = tmp
        saved = pycc_compiler.Flags
        pycc_compiler.Flags = _GilReleasingFlags
        pycc_compiler.compile_extra = counted_compile
        pycc_compiler.ModuleCompiler._cull_exports = counted_cull
        try:
            cc.compile()
        finally:
            pycc_compiler.Flags = saved
            pycc_compiler.compile_extra = compile_extra
            pycc_compiler.ModuleCompiler._cull_exports = cull_exports
        os.replace(Path(tmp) / target.name, target)
    prune(target.parent, keep=KEEP_BUILDS)
    progress(total, total, "")
    return target


def build_showing_progress(directory: Path | None = None) -> Path:
    """``build`` with a progress bar on stderr (rich; imported here: only a build needs it):
    what ``fluid-compat build-kernels`` shows for its 25-50 s.  Off a terminal the bar is
    drawn once, when the build ends."""
    from rich.console import Console
    from rich.progress import (BarColumn, Progress, TaskProgressColumn, TextColumn,
                               TimeElapsedColumn)

    console = Console(stderr=True)
    columns = (TextColumn("building kernels"), BarColumn(bar_width=30), TaskProgressColumn(),
               TimeElapsedColumn(), TextColumn("{task.fields[step]}"))
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("build", total=None, step="")

        def show(done: int, total: int, step: str) -> None:
            bar.update(task, completed=done, total=total, step=step)

        return build(directory, progress=show)


KEEP_BUILDS = 4
"""Builds ``build`` leaves in its directory (the newest; others are of older sources, CPUs or
numpy versions: ~1 MB each)."""


def prune(directory: Path, keep: int) -> list[Path]:
    """Delete all but the ``keep`` newest builds in ``directory`` (a process that loaded one
    keeps its mapping); the deleted paths.  A file that cannot be deleted is left."""
    from importlib.machinery import EXTENSION_SUFFIXES

    builds = sorted((p for p in directory.glob(f"{_module_name('*')}{EXTENSION_SUFFIXES[0]}")
                     if p.is_file()), key=lambda p: p.stat().st_mtime, reverse=True)
    deleted = []
    for path in builds[keep:]:
        try:
            path.unlink()
        except OSError:
            continue
        deleted.append(path)
    return deleted


def _adapter(name: str, kinds: tuple[str, ...], exports: dict, fallback):
    """``name``(*args): the export for the first array's dtype when every array argument is
    one it takes (module doc), else ``fallback()``'s loop of that name (the JIT path)."""
    arrays = tuple((i, int(kind[1:]), kind[0] == "C") for i, kind in enumerate(kinds)
                   if kind[0] in "CA")
    first = arrays[0][0]

    def call(*args):
        dtype = getattr(args[first], "dtype", None)
        fn = exports.get(dtype) if isinstance(dtype, np.dtype) else None
        if fn is not None and len(args) == len(kinds):
            for i, ndim, contiguous in arrays:
                a = args[i]
                flags = a.flags if type(a) is np.ndarray else None
                if (flags is None or a.dtype != dtype or a.ndim != ndim or not flags.aligned
                        or (contiguous and not flags.c_contiguous)):
                    break
            else:
                _CALLED[0] = True
                return fn(*args)
        loops = fallback()
        if loops is None:
            raise TypeError(f"compiled loop {name}: {_refused(kinds, arrays, args)}; the "
                            "ahead-of-time build (phi.kernels.funcs.aot) takes no other, and "
                            "numba, the JIT path for other arguments, is not installed")
        return getattr(loops, name)(*args)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = (f"The ahead-of-time build of ``_jit_loops.{name}`` (module "
                    "phi.kernels.funcs.aot).")
    return call


def _refused(kinds, arrays, args) -> str:
    """Which argument an export does not take, and what it needs."""
    if len(args) != len(kinds):
        return f"{len(args)} arguments given, {len(kinds)} expected"
    first = args[arrays[0][0]]
    dtype = getattr(first, "dtype", None)
    if not (isinstance(dtype, np.dtype) and dtype in DTYPES):
        return (f"argument {arrays[0][0]} has dtype {dtype}, expected native float32 or "
                "float64")
    for i, ndim, contiguous in arrays:
        a = args[i]
        need = (f"a {ndim}-D {'C-contiguous ' if contiguous else ''}numpy array of "
                f"{dtype}")
        if type(a) is not np.ndarray:
            return f"argument {i} is a {type(a).__name__}, expected {need}"
        if a.dtype != dtype or a.ndim != ndim:
            return f"argument {i} is a {a.ndim}-D array of {a.dtype}, expected {need}"
        if not a.flags.aligned:
            return f"argument {i} is not aligned to its dtype, expected {need}"
        if contiguous and not a.flags.c_contiguous:
            return f"argument {i} has strides {a.strides}, expected {need}"
    return "arguments refused"


class Loops:
    """The loops of one build, by ``_jit_loops``' names (attributes, as on the module)."""

    def __init__(self, module, fallback):
        self.module = module
        for name, kinds in EXPORTS.items():
            exports = {dtype: getattr(module, f"{name}_{dtype.name}") for dtype in DTYPES}
            setattr(self, name, _adapter(name, kinds, exports, fallback))

    def __repr__(self) -> str:
        return f"<compiled loops, ahead-of-time build {self.module.__file__}>"


_LOCK = threading.Lock()


def load(fallback, directory: Path | None = None) -> Loops | None:
    """This machine's build from ``directory`` (default ``cache_dir()``) as ``Loops``, or None
    when there is none or it does not import; ``fallback()`` gives the JIT loops (or None) for
    arguments the build does not take."""
    try:
        key = tag()  # reads the loops' source: an install without it has no build to match
    except OSError:
        return None
    path = module_path(directory, key)
    if not path.is_file():
        return None
    from importlib.machinery import ExtensionFileLoader
    from importlib.util import module_from_spec, spec_from_file_location

    name = _module_name(key)
    with _LOCK:
        try:
            module = sys.modules.get(name)
            if module is None:
                spec = spec_from_file_location(name, path,
                                               loader=ExtensionFileLoader(name, str(path)))
                module = module_from_spec(spec)
                spec.loader.exec_module(module)
                sys.modules[name] = module
            return Loops(module, fallback)
        except (ImportError, OSError, AttributeError):  # damaged or foreign: the JIT path
            return None
