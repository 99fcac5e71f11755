"""The optional compiled path (numba): a few loops numpy cannot express without extra passes.

numba is an optional extra (``pip install fluid-phi-bridge[numba]``).  When it is importable
and ``FLAGS_kernel_numba`` is on (the default), the kernels below replace parts of the numpy
path: depthwise convolution as direct loops (phi.kernels.conv), Winograd's input and output
transforms (phi.kernels.conv), max pooling over small windows (phi.kernels.pooling), the
conv_bn step's epilogue (fluid_compat.operators.fusion), and layer_norm, gelu's exact form and
last-axis softmax as one call each (phi.kernels.normalization, activation, softmax; these from
the ahead-of-time build only, ``built``).
With the flag off, or without numba, every kernel runs its numpy path, which stays complete.
When ``fluid-compat build-kernels`` has built the loops ahead of time for this machine
(``phi.kernels.aot``, ``FLAGS_kernel_aot``), that build is used instead and numba is not
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
"""

from __future__ import annotations

import os
import threading

import numpy as np

from phi import flags
from phi.kernels import aot

__all__ = ["DTYPES", "FLAG", "THREADS_FLAG", "built", "contiguous", "kernels", "split"]

DTYPES = aot.DTYPES  # the dtypes the compiled loops take (one table for both builds)

FLAG = "FLAGS_kernel_numba"
flags.define_flag(FLAG, bool, True,
                  "Compiled (numba) loops for depthwise convolution, Winograd transforms, "
                  "pooling and the conv_bn epilogue when numba is installed or the loops are "
                  "built ahead of time, and for layer_norm, gelu and softmax when they are "
                  "built; off: the numpy path.")
THREADS_FLAG = "FLAGS_kernel_threads"
flags.define_flag(THREADS_FLAG, int, 1,
                  "Threads the compiled loops split their channels over (the caller and "
                  "kernel_threads - 1 helpers, one caller at a time); 1: the caller's thread "
                  "only.")
FLAGS = flags.FLAGS

_LOCK = threading.Lock()
_STATE: dict = {}  # FLAGS_kernel_aot -> the loops (or None) once looked for
_JIT_LOCK = threading.Lock()
_JIT_STATE: list = []  # [module or None] once numba's import was tried
_BUILT: list = []  # [the ahead-of-time build or None] once looked for by built()


def kernels():
    """The compiled loops when ``FLAGS_kernel_numba`` is on: their ahead-of-time build
    (``phi.kernels.aot``) when ``FLAGS_kernel_aot`` is on and one matches this machine, else
    the JIT module ``phi.kernels._jit_loops`` when numba imports, else None."""
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
    """numba's JIT module ``phi.kernels._jit_loops`` (imported on the first call), or None
    when numba does not import."""
    if _JIT_STATE:
        return _JIT_STATE[0]
    with _JIT_LOCK:
        if not _JIT_STATE:
            try:
                from phi.kernels import _jit_loops
            except Exception:  # numba absent or broken: the numpy path
                _JIT_STATE.append(None)
            else:
                _JIT_STATE.append(_jit_loops)
    return _JIT_STATE[0]


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
