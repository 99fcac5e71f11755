"""The optional compiled path (numba): a few loops numpy cannot express without extra passes.

numba is an optional extra (``pip install fluid-phi-bridge[numba]``).  When it is importable
and ``FLAGS_kernel_numba`` is on (the default), the kernels below replace parts of the numpy
path: depthwise convolution as direct loops (phi.kernels.conv), Winograd's input and output
transforms (phi.kernels.conv), max pooling over small windows (phi.kernels.pool), the
conv_bn step's epilogue (fluid_compat.operators.fusion), and layer_norm, gelu's exact form and
last-axis softmax as one call each (phi.kernels.layer_norm, activation, softmax; these from
the ahead-of-time build only, ``built``).
With the flag off, or without numba, every kernel runs its numpy path, which stays complete.
When ``fluid-compat build-kernels`` has built the loops ahead of time for this machine
(``phi.kernels.funcs.aot``, ``FLAGS_kernel_aot``), that build is used instead and numba is not
imported (it is not even needed then): the same code, ~10 MB instead of ~110.

numba is imported on the first call that wants it (a program without those kernels never pays
for it; with the ahead-of-time build none does); functions are compiled with ``cache=True``,
so their compile cost (seconds) is paid once per machine and later processes load them from
numba's cache (numba's compiler lock serialises a first compile that several threads ask for
at once).  They hold no state, release the GIL (``nogil``) and write only into arrays their
caller allocated for that call: one executor stays safe from many threads.  Arithmetic is
float32 in float32 (as numpy's and BLAS's loops are) with no fastmath: sums are in a fixed
order, so the same inputs give the same bits on every run; against the numpy path only the
order of additions differs (within a few 1e-7 relative; none for layer_norm and gelu, which
repeat numpy's order) and softmax's exp, the C library's (within ~8 ulp).

What the user is told: numba's first compile of the loops (a cold cache: a fresh install,
an edited ``_jit_loops.py``, another numba) takes seconds to tens of seconds, so the moment
one of them really compiles (numba's ``numba:compile`` event, which fires only when its cache
has no machine code for the call) one INFO record, ``NOTICE``, goes to the
``phi.kernels.jit`` logger, once per process: never for loops loaded from numba's cache, nor
with the ahead-of-time build (numba is not even imported then), nor while ``fluid-compat
build-kernels`` compiles them.  Library code prints nothing: with logging unconfigured an INFO
record shows nowhere; ``enable_notices()`` (the command line calls it) writes the bare message
to stderr; an application silences it with
``logging.getLogger("phi.kernels.jit").setLevel(logging.WARNING)``.  ``path_taken()`` and
``path_summary()`` say which path the kernels ran (numpy, numba's JIT, the ahead-of-time
build).
"""

from __future__ import annotations

import os
import threading

import numpy as np

from phi import flags
from phi.kernels.funcs import aot

__all__ = ["COMPILE_SECONDS", "DTYPES", "FLAG", "LOGGER", "NOTICE", "PATHS", "THREADS_FLAG",
           "built", "contiguous", "enable_notices", "jit_loops", "kernels", "path_summary",
           "path_taken", "split"]

DTYPES = aot.DTYPES  # the dtypes the compiled loops take (one table for both builds)

FLAG = "FLAGS_kernel_numba"
THREADS_FLAG = "FLAGS_kernel_threads"
FLAGS = flags.FLAGS

_LOCK = threading.Lock()
_STATE: dict = {}  # FLAGS_kernel_aot -> the loops (or None) once looked for
_JIT_LOCK = threading.Lock()
_JIT_STATE: list = []  # [module or None] once numba's import was tried
_BUILT: list = []  # [the ahead-of-time build or None] once looked for by built()


def kernels():
    """The compiled loops when ``FLAGS_kernel_numba`` is on: their ahead-of-time build
    (``phi.kernels.funcs.aot``) when ``FLAGS_kernel_aot`` is on and one matches this machine, else
    the JIT module ``phi.kernels.funcs._jit_loops`` when numba imports, else None."""
    if not FLAGS[FLAG]:
        return None
    use_aot = FLAGS[aot.FLAG]
    try:
        return _STATE[use_aot]
    except KeyError:
        pass
    with _LOCK:
        if use_aot not in _STATE:
            loops = aot.load(jit_loops) if use_aot else None
            _STATE[use_aot] = loops if loops is not None else jit_loops()
    return _STATE[use_aot]


def built():
    """The compiled loops' ahead-of-time build when ``FLAGS_kernel_numba`` and
    ``FLAGS_kernel_aot`` are on and one matches this machine, else None: never numba's JIT.
    For the kernels whose loop saves microseconds a call (layer_norm, gelu, softmax: the
    transformer-class models), where importing numba (~0.5 s and ~100 MB) would cost a short
    process far more than it saves; without a build they keep their numpy path, and a program
    without convolutions never imports numba.  Decided once per process (the same loops, or
    none, on every run)."""
    if not (FLAGS[FLAG] and FLAGS[aot.FLAG]):
        return None
    if _BUILT:
        return _BUILT[0]
    with _LOCK:
        if not _BUILT:
            if True in _STATE:  # kernels() looked already: the build it found, or none
                loops = _STATE[True]
            else:
                loops = aot.load(jit_loops)
                if loops is not None:
                    _STATE[True] = loops
            _BUILT.append(loops if isinstance(loops, aot.Loops) else None)
    return _BUILT[0]


def contiguous(a):
    """numpy array ``a`` as the compiled loops take it: C-contiguous and aligned to its dtype
    (``a`` itself when it already is; else a fresh copy).  ``np.ascontiguousarray`` keeps a
    misaligned C-contiguous array (a user's ``np.frombuffer`` at an odd offset), which the
    ahead-of-time build refuses and, without numba, could not run."""
    flags = a.flags
    if flags.c_contiguous and flags.aligned:
        return a
    return np.array(a, order="C")


def jit_loops():
    """numba's JIT module ``phi.kernels.funcs._jit_loops`` (imported on the first call), or None
    when numba does not import."""
    if _JIT_STATE:
        return _JIT_STATE[0]
    with _JIT_LOCK:
        if not _JIT_STATE:
            try:
                from phi.kernels.funcs import _jit_loops
            except Exception:  # numba absent or broken: the numpy path
                _JIT_STATE.append(None)
            else:
                _watch_compiles(_jit_loops)
                _JIT_STATE.append(_jit_loops)
    return _JIT_STATE[0]


# ---- what the user is told: the first compile, and the path that ran (module doc) -------------

LOGGER = "phi.kernels.jit"  # the name users configure (kept when the module moved to funcs)
"""The logger of the compile notice (INFO)."""

COMPILE_SECONDS = 15
"""About how long numba takes to compile every loop for one dtype from a cold cache, in
seconds: 13.5 s measured on a 2-core x86-64 machine (depthwise 3.7, layer_norm 2.1, im2col 2.1,
... softmax 0.2), a few more for LLVM's own start.  A program compiles the loops it calls."""

NOTICE = ("compiling kernels, once: ~{seconds} s; `fluid-compat build-kernels` does it ahead "
          "of time")
"""The compile notice (``seconds``: ``COMPILE_SECONDS``)."""

_NOTICE_LOCK = threading.Lock()
_NOTICE: dict = {"logged": False, "stderr": False, "handler": None, "depth": 0, "start": 0.0,
                 "seconds": 0.0, "compiles": 0}


def enable_notices() -> None:
    """Write the compile notice to stderr (the bare message, no logging prefix): what the
    ``fluid-compat`` command calls.  Attached when a notice is due (logging is not imported
    before: a cold start's import); a program's own logging configuration is left as it is.
    Silence it again with ``logging.getLogger(LOGGER).setLevel(logging.WARNING)``."""
    _NOTICE["stderr"] = True


def _stderr_handler():
    """A logging handler writing a record's bare message to whatever ``sys.stderr`` is when
    it is written (a test's capture, a redirected stream); made when first needed."""
    import logging
    import sys

    class StderrMessage(logging.Handler):
        def emit(self, record) -> None:
            try:
                sys.stderr.write(self.format(record) + "\n")
                sys.stderr.flush()
            except Exception:  # a closed stream: the notice is not worth a failure
                self.handleError(record)

    handler = StderrMessage(logging.INFO)
    handler.setFormatter(logging.Formatter("%(message)s"))
    return handler


def _notify() -> None:
    """Log ``NOTICE`` (once per process; the caller holds numba's compiler lock)."""
    import logging

    logger = logging.getLogger(LOGGER)
    if _NOTICE["stderr"] and _NOTICE["handler"] is None:
        _NOTICE["handler"] = _stderr_handler()
        logger.addHandler(_NOTICE["handler"])
        if logger.level == logging.NOTSET:
            logger.setLevel(logging.INFO)
    logger.info(NOTICE.format(seconds=COMPILE_SECONDS))


def _watch_compiles(module) -> None:
    """Listen to numba's compile events of ``module``'s loops (the JIT module): the notice
    before the first one, and the time spent compiling (``path_summary``).  numba fires the
    event only on a cache miss, inside its compiler lock (one compile at a time, nested ones
    for the loops a loop calls); best effort: a numba without the event API gives no notice."""
    try:
        from numba.core import event
    except ImportError:
        return
    import time

    name = module.__name__

    def ours(ev) -> bool:
        fn = getattr((ev.data or {}).get("dispatcher"), "py_func", None)
        return getattr(fn, "__module__", None) == name

    class CompileWatch(event.Listener):
        def on_start(self, ev) -> None:
            # a build (fluid-compat build-kernels) compiles them too: it shows its own progress
            if not ours(ev) or aot.building():
                return
            with _NOTICE_LOCK:
                _NOTICE["depth"] += 1
                if _NOTICE["depth"] > 1:
                    return
                _NOTICE["start"] = time.perf_counter()
                first = not _NOTICE["logged"]
                _NOTICE["logged"] = True
            if first:
                _notify()

        def on_end(self, ev) -> None:
            if not ours(ev) or aot.building():
                return
            with _NOTICE_LOCK:
                _NOTICE["depth"] -= 1
                if _NOTICE["depth"] == 0:
                    _NOTICE["seconds"] += time.perf_counter() - _NOTICE["start"]
                    _NOTICE["compiles"] += 1

    event.register("numba:compile", CompileWatch())


PATHS = ("numpy", "JIT", "ahead-of-time build")


def path_taken() -> str:
    """Which path the compiled-loop kernels took in this process so far: ``"ahead-of-time
    build"`` (``phi.kernels.funcs.aot``), ``"JIT"`` (numba's), both joined by ``" + "`` (the build
    handed an argument it does not take to the JIT), or ``"numpy"`` (no compiled loop ran:
    numba absent, FLAGS_kernel_numba off, or no kernel that has one).  Never imports numba."""
    taken = []
    if aot.called():
        taken.append(PATHS[2])
    jit = _JIT_STATE[0] if _JIT_STATE else None
    if jit is not None and any(getattr(jit, n).overloads for n in aot.EXPORTS):
        taken.append(PATHS[1])
    return " + ".join(taken) or PATHS[0]


def path_summary() -> str:
    """``path_taken()`` with why or from where, one line for a person: the build's file, the
    JIT's compile time in this process (or that it came from numba's cache), or why numpy."""
    taken = path_taken()
    parts = []
    if PATHS[2] in taken:
        loops = _BUILT[0] if _BUILT else _STATE.get(True)
        where = getattr(getattr(loops, "module", None), "__file__", None)
        parts.append(f"{PATHS[2]} ({where})" if where else PATHS[2])
    if PATHS[1] in taken:
        if _NOTICE["compiles"]:
            parts.append(f"numba JIT (compiled in {_NOTICE['seconds']:.1f} s, once: numba caches "
                         "them; `fluid-compat build-kernels` builds them ahead of time)")
        else:
            parts.append("numba JIT (from numba's cache)")
    if parts:
        return " + ".join(parts)
    if not FLAGS[FLAG]:
        return f"numpy ({FLAG} is off)"
    if _JIT_STATE and _JIT_STATE[0] is None:
        return ("numpy (numba is not installed and there is no ahead-of-time build: "
                "`pip install 'fluid-phi-bridge[numba]'` for the compiled loops)")
    if not _JIT_STATE and _BUILT == [None]:  # only built() looked (the transformer kernels)
        return ("numpy (no ahead-of-time build, which layer_norm, gelu and softmax take theirs "
                "from: `fluid-compat build-kernels`)")
    return "numpy (no kernel with a compiled loop ran)"


# ---- splitting a compiled loop's channels over threads ----------------------------------------
#
# The compiled loops release the GIL and take a channel range [c0, c1): ``split`` runs the first
# part on the calling thread and the others on helper threads (a process-wide pool of
# FLAGS_kernel_threads - 1), each part writing only its own channels of arrays the caller
# allocated.  One caller holds the helpers at a time (a lock taken without waiting): while one
# executor thread uses them, any other caller runs its loop whole on its own thread, so many
# executors at once never queue behind each other nor oversubscribe the cores more than BLAS
# does.  numba's parallel=True (its workqueue layer is not safe for concurrent callers) is not
# used.

_HELPERS_BUSY = threading.Lock()
_POOL: list = []  # [ThreadPoolExecutor, its size] once made


def _reset_after_fork() -> None:  # a forked child has the pool's objects but not its threads
    global _HELPERS_BUSY
    _POOL.clear()
    _HELPERS_BUSY = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def _pool(helpers: int):
    if not _POOL or _POOL[1] < helpers:
        from concurrent.futures import ThreadPoolExecutor

        if _POOL:
            _POOL[0].shutdown(wait=False)
            _POOL.clear()
        _POOL.extend((ThreadPoolExecutor(helpers, thread_name_prefix="phi-kernels"), helpers))
    return _POOL[0]


def split(fn, count: int, work: int, *args) -> None:
    """fn(*args, c0, c1) over c0 .. c1 covering range(count): in parts on FLAGS_kernel_threads
    threads when ``work`` (the loop's multiply-adds or element updates, about) is worth the
    hand-off (>= MIN_SPLIT_WORK) and the helpers are free; else fn(*args, 0, count)."""
    threads = min(FLAGS[THREADS_FLAG], count)
    if threads < 2 or work < MIN_SPLIT_WORK or not _HELPERS_BUSY.acquire(blocking=False):
        fn(*args, 0, count)
        return
    try:
        pool = _pool(threads - 1)
        bounds = [count * i // threads for i in range(threads + 1)]
        futures = [pool.submit(fn, *args, bounds[i], bounds[i + 1]) for i in range(1, threads)]
        try:
            fn(*args, bounds[0], bounds[1])
        finally:
            for f in futures:  # every part finished (or failed) before the caller goes on
                f.result()
    finally:
        _HELPERS_BUSY.release()


MIN_SPLIT_WORK = 200_000
"""Least work (multiply-adds) worth a hand-off to the helper threads (tens of microseconds)."""
