"""Helpers shared by the kernels (Paddle's phi/kernels/funcs): C++ conversion semantics on xp.

Paddle's CPU kernels are C++ templates over the element type T, so what a kernel computes is
what ``static_cast<T>`` and T's arithmetic do on x86-64, where the 2.6.2 wheel runs.  numpy
differs in a few places, written down here once:

* float -> integer: C++ truncates toward zero; NaN, +-inf and out-of-range values are undefined
  behaviour, which x86-64 compiles to ``cvttss2si``/``cvttsd2si``: they yield the "integer
  indefinite" value, INT_MIN of the 32- or 64-bit register.  Narrower targets (int8, int16,
  uint8) are converted through a 32-bit register and truncated (wrap modulo 2**n).  numpy's
  result is platform-defined and warns, so the rule is applied explicitly.
  (Derived from the C++ and x86 semantics; the wheel itself was not run on such inputs.)
* float -> bfloat16: Paddle's CPU ``bfloat16(float)`` keeps the upper 16 bits of the float32
  (truncation toward zero; phi/common/bfloat16.h), and its arithmetic converts every result back
  the same way; ml_dtypes rounds to nearest even.  Doubles go through float32 first.
* float -> float16: Paddle 2.6.2's CPU wheel converts by truncation toward zero as well (its
  portable float16(float) shifts the mantissa right), and magnitudes above 65504 become inf;
  numpy rounds to nearest even.  Verified bit for bit against the wheel on 3 million float32
  values (normals, subnormals, overflow, NaN, signed zeros).  Every float16 operation computes
  in float32 and converts back this way (Eigen's half arithmetic), so a chain of two ops
  truncates twice: ``scale(1.0, scale=2.8, bias=3.2)`` is 5.996 in float16, not 6.0.
* integer division truncates toward zero (numpy floors).
"""

from __future__ import annotations

import contextlib
import math
import threading

import numpy as np

from phi.common.data_type import DataType
from phi.common.scalar import Scalar

__all__ = [
    "ALL_DTYPES",
    "COMPLEX",
    "FLOATS",
    "INTEGERS",
    "as_array",
    "bf16_op",
    "cast_array",
    "half_op",
    "to_float16",
    "to_half",
    "float_to_int",
    "owned",
    "prod",
    "quiet",
    "scalar_as",
    "to_bfloat16",
    "trunc_divide",
]

INTEGERS = frozenset({DataType.INT8, DataType.UINT8, DataType.INT16, DataType.UINT16,
                      DataType.INT32, DataType.UINT32, DataType.INT64, DataType.UINT64})
FLOATS = frozenset({DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT32, DataType.FLOAT64})
COMPLEX = frozenset({DataType.COMPLEX64, DataType.COMPLEX128})
#: the twelve dtypes Paddle registers its dtype-agnostic CPU kernels for (copies, reshapes ...)
ALL_DTYPES = ("float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool",
              "float16", "bfloat16", "complex64", "complex128")
_REAL_OF = {DataType.COMPLEX64: DataType.FLOAT32, DataType.COMPLEX128: DataType.FLOAT64}


_QUIET = threading.local()  # .on: this thread runs inside quiet_run (numpy already quiet)
_NO_CONTEXT = contextlib.nullcontext()


def quiet(xp):
    """Silence floating-point warnings: Paddle's kernels give inf/NaN/wrapped ints silently."""
    if xp is np and getattr(_QUIET, "on", False):
        return _NO_CONTEXT  # inside quiet_run: numpy's errstate is already 'ignore'
    errstate = getattr(xp, "errstate", None)
    return errstate(all="ignore") if errstate is not None else contextlib.nullcontext()


class quiet_run:  # used as a function: ``with quiet_run():``
    """numpy's floating-point warnings off for a whole run of kernels on this thread, entered
    once (np.errstate costs ~1.5 us, more than many tiny kernels): ``quiet(np)`` inside is free.
    Executors wrap a planned run in it (FLAGS_quiet_run)."""

    __slots__ = ("_errstate", "_was")

    def __enter__(self):
        self._was = getattr(_QUIET, "on", False)
        self._errstate = np.errstate(all="ignore")
        self._errstate.__enter__()
        _QUIET.on = True
        return self

    def __exit__(self, *exc):
        _QUIET.on = self._was
        return self._errstate.__exit__(*exc)


def as_array(xp, value):
    """An array of ``xp`` (numpy turns 0-d results into numpy scalars)."""
    return xp.asarray(value)


def owned(xp, array):
    """A copy that shares no memory with the input: Paddle's outputs never alias inputs."""
    return xp.asarray(array, copy=True)


def to_bfloat16(ctx, array):
    """float32 (or anything castable to it) -> bfloat16 by truncation, as Paddle's CPU does."""
    xp = ctx.xp
    f32 = as_array(xp, ctx.astype(as_array(xp, array), DataType.FLOAT32))  # a new array
    bits = xp.bitwise_right_shift(f32.view(ctx.xp_dtype(DataType.UINT32)), 16)
    return ctx.astype(bits, DataType.UINT16).view(ctx.xp_dtype(DataType.BFLOAT16))


def to_float16(ctx, array):
    """float32 (or anything castable to it) -> float16 as Paddle's CPU does (module doc):
    toward zero, subnormals included; |x| > 65504 -> inf; NaN stays NaN."""
    xp = ctx.xp
    f32 = as_array(xp, ctx.astype(as_array(xp, array), DataType.FLOAT32))
    with quiet(xp):
        mag = xp.abs(f32)
        over = mag > 65504.0
        # normal float16 range: drop the 13 mantissa bits float16 does not keep
        kept = xp.bitwise_and(mag.view(ctx.xp_dtype(DataType.UINT32)),
                              xp.asarray(0xFFFFE000, dtype=ctx.xp_dtype(DataType.UINT32)))
        normal = kept.view(ctx.xp_dtype(DataType.FLOAT32))
        # subnormals: whole multiples of 2**-24, toward zero (exact in float32)
        sub = xp.trunc(mag * 2.0**24) * 2.0**-24
        mag = xp.where(mag >= 2.0**-14, normal, sub)
        mag = xp.where(over, xp.inf, mag)
        out = ctx.astype(xp.where(xp.signbit(f32), -mag, mag), DataType.FLOAT16)
    return as_array(xp, out)


def to_half(ctx, array, dtype: DataType):
    """float32 -> ``dtype`` (float16 or bfloat16) by Paddle's CPU conversion."""
    return to_float16(ctx, array) if dtype is DataType.FLOAT16 else to_bfloat16(ctx, array)


def half_op(ctx, fn, *arrays, dtype: DataType | None = None):
    """Apply ``fn`` to float16 / bfloat16 arrays in float32 and convert the result back to
    their dtype (or ``dtype``) as Paddle's CPU does: one Eigen half operation."""
    dtype = dtype if dtype is not None else ctx.data_type(arrays[0])
    with quiet(ctx.xp):
        result = fn(*[ctx.astype(a, DataType.FLOAT32) for a in arrays])
    return to_half(ctx, as_array(ctx.xp, result), dtype)


def bf16_op(ctx, fn, *arrays):
    """Apply ``fn`` to bfloat16 arrays in float32 and truncate the result back to bfloat16."""
    return half_op(ctx, fn, *arrays, dtype=DataType.BFLOAT16)


def float_to_int(ctx, array, dtype: DataType):
    """static_cast of floats to an integer dtype with x86-64 results (see the module doc)."""
    xp = ctx.xp
    via = dtype if dtype in (DataType.INT32, DataType.INT64) else DataType.INT32
    info = xp.iinfo(ctx.xp_dtype(via))
    with quiet(xp):
        t = xp.trunc(ctx.astype(array, DataType.FLOAT64))
        # lo and hi + 1 are powers of two, exact in float64; NaN fails both comparisons
        valid = (t >= float(info.min)) & (t < float(info.max) + 1.0)
        t = xp.where(valid, t, float(info.min))
        out = ctx.astype(t, via)
    if via is not dtype:
        out = ctx.astype(out, dtype)  # integer narrowing wraps, as truncating the register does
    return as_array(xp, out)


def plain_cast(src: DataType, dtype: DataType) -> bool:
    """Whether ``static_cast`` from ``src`` to ``dtype`` is numpy's astype as it is: no real
    part taken, no bool, float-to-int or half-precision rule of its own (cast_array)."""
    return not ((src in COMPLEX and dtype not in COMPLEX) or dtype is DataType.BOOL
                or (dtype in INTEGERS and src in FLOATS)
                or dtype in (DataType.BFLOAT16, DataType.FLOAT16))


def cast_array(ctx, array, dtype: DataType):
    """``static_cast<dtype>`` element-wise (Paddle's CastKernel), always a new array."""
    xp = ctx.xp
    src = ctx.data_type(array)
    if src is dtype:
        return owned(xp, array)
    with quiet(xp):
        if plain_cast(src, dtype):
            return as_array(xp, ctx.astype(array, dtype))
        if src in COMPLEX and dtype not in COMPLEX:
            # phi::dtype::complex converts to a real type through its real part
            array = as_array(xp, xp.real(array))
            src = _REAL_OF[src]
        if dtype is DataType.BOOL:
            return as_array(xp, array != 0)  # NaN != 0: true, as in C++
        if dtype in INTEGERS and src in FLOATS:
            return float_to_int(ctx, array, dtype)
        if dtype is DataType.BFLOAT16:
            return to_bfloat16(ctx, array)
        if dtype is DataType.FLOAT16:
            # float16(const T&) goes through float: doubles and ints round to float first
            return to_float16(ctx, array)
        return as_array(xp, ctx.astype(array, dtype))


_NUMPY_SCALARS: dict = {}  # (number, numpy dtype) -> that number as a numpy scalar of the dtype


def numpy_scalar(value, dtype: np.dtype):
    """``dtype.type(value)``, memoised: numpy 2 converts a Python number operand on every ufunc
    call (NEP 50), which costs more than a small ufunc; a numpy scalar of the array's dtype
    gives the same values.  (Zero is made each time: -0.0 == 0.0 as a key; NaN never hits.)"""
    key = (value, dtype)
    r = _NUMPY_SCALARS.get(key) if value else None
    if r is None:
        r = dtype.type(value)
        if value and len(_NUMPY_SCALARS) < 1024:
            _NUMPY_SCALARS[key] = r
    return r


def scalar_as(ctx, value, dtype: DataType):
    """Paddle's ``Scalar::to<T>()``: a 0-d array of ``dtype`` holding static_cast<T>(value).

    A Python bool is held as bool, an int as int64 (wrapped), a float as double and a complex as
    complex128, as phi::Scalar stores them.
    """
    v = value.value if isinstance(value, Scalar) else value
    memo = ctx.xp is np and v == v  # NaN keys would never hit
    if memo:
        key = (type(v), repr(v), dtype)  # repr: -0.0 and 0.0 differ, True and 1 too
        hit = _SCALARS.get(key)
        if hit is not None:
            return hit
    if isinstance(v, bool):
        src = DataType.BOOL
    elif isinstance(v, int):
        v = (v + 2**63) % 2**64 - 2**63
        src = DataType.INT64
    elif isinstance(v, float):
        src = DataType.FLOAT64
    else:
        src = DataType.COMPLEX128
    out = cast_array(ctx, ctx.asarray(v, src), dtype)
    if memo and type(out) is np.ndarray:
        if len(_SCALARS) > 1024:  # attribute values are few; a flood of computed ones is not
            _SCALARS.clear()
        out.flags.writeable = False  # shared: nobody may write into a cached constant
        _SCALARS[key] = out
    return out


# (type, repr, dtype) -> the read-only 0-d numpy array scalar_as made for it: fill values are
# converted once, not on every run (the conversion is a handful of numpy calls)
_SCALARS: dict[tuple, np.ndarray] = {}


def trunc_divide(xp, x, y):
    """Integer division truncating toward zero (C++ ``/``); divisors must be non-zero.

    INT_MIN / -1 (undefined behaviour in C++, a crash on x86) wraps to INT_MIN here.
    """
    with quiet(xp):
        q = xp.floor_divide(x, y)
        r = x - q * y
        fix = (r != 0) & ((x < 0) != (y < 0))
        return as_array(xp, q + xp.astype(fix, q.dtype))


def prod(values) -> int:
    """Product of ints (1 for none)."""
    return math.prod(int(v) for v in values)
