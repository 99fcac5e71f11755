"""The C library's math functions, value by value, where Paddle's CPU kernels call them
(``std::log`` / ``exp`` / ``pow`` / ``atan2`` in T) and bits matter: glibc's ``logf`` is not
correctly rounded, and numpy's vectorised functions differ from glibc's in the last bit of some
values (on AVX-512 CPUs also ``arctan2``).  Small arrays go through ctypes, one call a value;
from ``_COMPILED_MIN`` values log and exp take numba loops over ``math.log`` / ``math.exp``,
which numba lowers to the same C calls.  Without a C library: numpy's functions.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math

import numpy as np

from phi import flags

__all__ = ["libm_atan2", "libm_exp", "libm_log", "libm_pow"]


@functools.cache
def _libm():
    """The C math library's logf / log / expf / exp / powf / pow / atan2f / atan2 (None where
    it cannot be loaded)."""
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        fns = {}
        for name, c in (("logf", ctypes.c_float), ("log", ctypes.c_double),
                        ("expf", ctypes.c_float), ("exp", ctypes.c_double),
                        ("powf", ctypes.c_float), ("pow", ctypes.c_double),
                        ("atan2f", ctypes.c_float), ("atan2", ctypes.c_double)):
            fn = getattr(lib, name)
            two = name.startswith(("pow", "atan2"))
            fn.restype, fn.argtypes = c, [c] * (2 if two else 1)
            fns[name] = fn
        return fns
    except (OSError, AttributeError):
        return None


#: arrays from this size take the compiled loops of `_compiled_libm` (when numba imports)
_COMPILED_MIN = 1 << 15


@functools.cache
def _compiled_libm():
    """numba loops calling math.log / math.exp, which numba lowers to calls of the C library's
    logf / log / expf / exp (no fast-math): the same bits as the ctypes calls, ~150x faster
    (tests/phi/kernels/test_random_streams_paddle.py checks the two agree); None without numba
    or with FLAGS_kernel_numba off."""
    try:
        if not flags.FLAGS["FLAGS_kernel_numba"]:
            return None
        import numba
    except Exception:  # numba missing or broken: the ctypes path
        return None

    @numba.njit(cache=True, nogil=True)
    def log_loop(x, out):
        for i in range(x.size):
            out[i] = math.log(x[i])

    @numba.njit(cache=True, nogil=True)
    def exp_loop(x, out):
        for i in range(x.size):
            out[i] = math.exp(x[i])

    return {"log": log_loop, "exp": exp_loop}


def _libm_unary(name: str, x: np.ndarray, fallback) -> np.ndarray:
    x = np.asarray(x)
    lib = _libm()
    if lib is None or x.dtype not in (np.float32, np.float64):
        return fallback(x)
    if x.size >= _COMPILED_MIN:
        loops = _compiled_libm()
        if loops is not None:
            flat = np.ascontiguousarray(x).reshape(-1)
            out = np.empty_like(flat)
            loops[name](flat, out)
            return out.reshape(x.shape)
    fn = lib[name + "f" if x.dtype == np.float32 else name]
    return np.array([fn(v) for v in x.reshape(-1).tolist()], x.dtype).reshape(x.shape)


def libm_log(x: np.ndarray) -> np.ndarray:
    """std::log of each value in x's dtype (float32: logf, float64: log), as Paddle's CPU
    kernels get it from the C library (one call a value); numpy's log without a C library."""
    return _libm_unary("log", x, np.log)


def libm_exp(x: np.ndarray) -> np.ndarray:
    """std::exp of each value in x's dtype (expf / exp of the C library), as libm_log."""
    return _libm_unary("exp", x, np.exp)


def libm_atan2(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """std::atan2(y, x) of each pair in the arrays' dtype (atan2f / atan2 of the C library;
    numpy's SIMD arctan2 differs from it in the last bit of some values on AVX-512 CPUs)."""
    y, x = np.broadcast_arrays(np.asarray(y), np.asarray(x))
    lib = _libm()
    if lib is None or y.dtype not in (np.float32, np.float64) or x.dtype != y.dtype:
        return np.arctan2(y, x)
    fn = lib["atan2f" if y.dtype == np.float32 else "atan2"]
    out = [fn(a, b) for a, b in zip(y.reshape(-1).tolist(), x.reshape(-1).tolist(),
                                      strict=True)]
    return np.array(out, y.dtype).reshape(y.shape)


def libm_pow(x, y, dtype):
    """std::pow(x, y) of two scalars in ``dtype`` (float32: powf, float64: pow)."""
    t = np.dtype(dtype).type
    lib = _libm()
    if lib is None:
        return t(math.pow(float(x), float(y)))
    return t(lib["powf" if t is np.float32 else "pow"](float(x), float(y)))


