"""Global switches in Paddle's ``FLAGS_*`` style.

Every flag is read from the environment when it is defined (``FLAGS_dispatch_trace=2 python ...``)
and can be changed at run time with :func:`set_flags`, as ``paddle.set_flags`` does.  Layers that
cache decisions depending on a flag subscribe with :func:`on_change`.

An environment value that does not parse (``FLAGS_fuse_conv_bn=maybe``) leaves the flag at its
default, as Paddle 2.6.2 does, and is recorded: :func:`environment_errors` lists them (the
``fluid-compat`` command refuses to run with one).  Raising at definition would make importing
the package, or a kernel module loaded on demand in the middle of a run, fail on it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from phi.core import records

from phi.core.errors import InvalidArgument, NotFound

__all__ = ["FLAGS", "define_flag", "environment_errors", "flag", "get_flags", "on_change",
           "set_flags"]


@records.frozen
class FlagDef:
    name: str
    type: type
    default: object
    doc: str


_DEFS: dict[str, FlagDef] = {}
FLAGS: dict[str, object] = {}
"""Current values by name; read directly on hot paths (a dict lookup).  Every flag is defined
in this module (the kernels' too, at its end), so none needs a module imported first."""
_LISTENERS: list[Callable[[str, object], None]] = []


def _convert(d: FlagDef, value: object, source: str) -> object:
    if d.type is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, int):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on"):
            return True
        if isinstance(value, str) and value.strip().lower() in ("0", "false", "no", "off", ""):
            return False
    elif d.type is int:
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, int):
            return value
        if isinstance(value, str):
            try:
                return int(value.strip() or "0")
            except ValueError:
                pass
    elif d.type is str and isinstance(value, str):
        return value
    raise InvalidArgument(
        f"Flag {d.name} expects a {d.type.__name__}, got {value!r} (from {source})."
    )


def define_flag(name: str, type_: type, default: object, doc: str) -> None:
    """Declare a flag; its initial value comes from the environment variable of the same name."""
    if not name.startswith("FLAGS_"):
        raise InvalidArgument(f"Flag names start with FLAGS_, got {name!r}.")
    if name in _DEFS:
        raise InvalidArgument(f"Flag {name} is defined twice.")
    d = FlagDef(name, type_, default, doc)
    _DEFS[name] = d
    env = os.environ.get(name)
    FLAGS[name] = default
    if env is not None:
        try:
            FLAGS[name] = _convert(d, env, f"environment variable {name}")
        except InvalidArgument:
            _ENV_ERRORS[name] = f"{name}={env!r} in the environment: {_expected(d)}"


def _expected(d: FlagDef) -> str:
    if d.type is bool:
        return "a bool is expected (1/0, true/false, yes/no, on/off)"
    if d.type is int:
        return "an integer is expected"
    return f"a {d.type.__name__} is expected"


_ENV_ERRORS: dict[str, str] = {}


def environment_errors() -> list[str]:
    """One message per ``FLAGS_*`` environment variable whose value did not parse (the flag
    kept its default)."""
    return list(_ENV_ERRORS.values())


def _lookup(name: str) -> FlagDef:
    d = _DEFS.get(name)
    if d is None:
        import difflib

        close = difflib.get_close_matches(name, list(_DEFS), n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise NotFound(f"Flag {name} is not defined.{hint} Defined flags: {', '.join(_DEFS)}.")
    return d


def get_flags(names: str | Iterable[str]) -> dict[str, object]:
    """``{name: value}`` for one flag name or several."""
    if isinstance(names, str):
        names = [names]
    return {n: FLAGS[_lookup(n).name] for n in names}


def flag(name: str) -> object:
    return FLAGS[_lookup(name).name]


def set_flags(values: dict[str, object]) -> None:
    """Set several flags at once; all names and values are checked before any is changed."""
    converted = {}
    for name, value in values.items():
        d = _lookup(name)
        converted[name] = _convert(d, value, "set_flags")
    for name, value in converted.items():
        if FLAGS[name] != value:
            FLAGS[name] = value
            for listener in _LISTENERS:
                listener(name, value)


def on_change(listener: Callable[[str, object], None]) -> None:
    """Call ``listener(name, value)`` whenever a flag changes through :func:`set_flags`."""
    _LISTENERS.append(listener)


define_flag(
    "FLAGS_enable_api_kernel_fallback",
    bool,
    True,
    "Fall back to the CPU kernel when the requested device has none (phi API).",
)
define_flag(
    "FLAGS_dispatch_trace",
    int,
    0,
    "Dispatch trace through logging: 0 off, 1 one line per op, 2 every lookup step and transform.",
)
define_flag(
    "FLAGS_static_gpu_fallback_to_cpu",
    bool,
    False,
    "Let legacy ops on GPU fall back to a CPU kernel (Paddle refuses; opt in here).",
)
define_flag(
    "FLAGS_lazy_kernel_import",
    bool,
    True,
    "Import kernel modules (phi and fluid) when a kernel of theirs is first looked up; 0 in the "
    "environment imports them all with the package (debugging). Results are the same.",
)
define_flag(
    "FLAGS_attrs_records",
    bool,
    False,
    "Define the record classes (phi.core.records) with attrs itself, as before; read from the "
    "environment when phi is first imported (changing it later has no effect).",
)
define_flag(
    "FLAGS_lazy_kernel_build",
    bool,
    True,
    "Make a built-in kernel's Kernel objects (signature parsing, argument definitions) on its "
    "name's first lookup instead of when its module registers it; 0 builds at registration "
    "(turning it off at run time builds every pending one). Results are the same.",
)


# The kernels' own switches (phi.kernels reads them; defined here so that reading or setting one
# needs no kernel module imported): the compiled loops and their builds, scratch buffers, the
# convolution / gelu / rnn fast paths, and the seeds of draws without a seed of their own.
define_flag("FLAGS_kernel_aot", bool, True,
            "The compiled loops from their ahead-of-time build (fluid-compat "
            "build-kernels) when one matches this machine: numba is not imported; off, "
            "or no build: numba's JIT.")
define_flag("FLAGS_kernel_numba", bool, True,
            "Compiled (numba) loops for depthwise convolution, Winograd transforms, "
            "pooling and the conv_bn epilogue when numba is installed or the loops are "
            "built ahead of time, and for layer_norm, gelu and softmax when they are "
            "built; off: the numpy path.")
define_flag("FLAGS_kernel_threads", int, 1,
            "Threads the compiled loops split their channels over (the caller and "
            "kernel_threads - 1 helpers, one caller at a time); 1: the caller's thread "
            "only.")
define_flag("FLAGS_kernel_scratch", bool, False,
            "Kernels' large intermediates (im2col columns, Winograd transforms) in "
            "per-thread reusable buffers instead of fresh arrays.")
define_flag("FLAGS_gelu_fast_erf", bool, True,
            "gelu (exact form) with one fitted erfc formula instead of fdlibm's erf.")
define_flag("FLAGS_conv_winograd", bool, True,
            "3x3 stride-1 convolutions over large maps as Winograd F(2x2, 3x3).")
define_flag("FLAGS_conv_1x1_gemm", bool, True,
            "1x1 stride-1 unpadded convolutions as one GEMM on the input's own view.")
define_flag("FLAGS_conv_im2col_blocks", bool, True,
            "With the compiled im2col, wide maps (ResNet's 7x7/2 stem) are convolved a "
            "block of output rows at a time (columns that stay in cache between the "
            "im2col and the GEMM); off: the whole map's columns, then one GEMM.")
define_flag("FLAGS_graph_sampler_seed", int, 0,
            "Seed of the graph samplers (Paddle draws from std::random_device).")
define_flag("FLAGS_random_op_seed", int, 0,
            "Seed of rrelu / gaussian_inplace / dirichlet / gumbel_softmax draws when the op "
            "has no seed of its own (0: fresh entropy, as Paddle's global generator).")
define_flag("FLAGS_kernel_rnn_fast", bool, True,
            "The rnn kernel's fast path on numpy (a layer's directions stepped together, "
            "in-place gate arithmetic, no per-step masking); off: the reference path, "
            "one direction and step at a time.  Both give the same values.")
