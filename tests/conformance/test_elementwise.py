"""Conformance cases for the binary elementwise ops, ported from the shapes, `axis` broadcasting
cases (broadcast_0..6, rowwise, channelwise, commonuse, xsize_lessthan_ysize, 0-d), input recipes
and dtypes of Paddle's test/legacy_test/test_elementwise_{add,sub,mul,div,max,min,pow,mod,
floordiv}_op.py.

float32 / float64 references are numpy formulas over the legacy `axis` alignment (Y's dims
placed at `axis` of X, or X's in Y when X has fewer). Integer, bool and half cases take Paddle
2.6.2's own outputs ("paddle", data/test_elementwise.npz): integer division / modulo follow
Paddle's functors and half results Paddle's float32-then-truncate conversion, not numpy."""

from __future__ import annotations

import numpy as np
import pytest

from phi.core.errors import NotFound, PreconditionNotMet
from fluid_compat import run_op

from .opcase import BF16, Case, check, rs


def legacy_broadcast(x, y, axis):
    """Align the operand with fewer dims at `axis` of the other (-1: trailing)."""
    swap = x.ndim < y.ndim
    big, small = (y, x) if swap else (x, y)
    if axis == -1 or small.ndim == big.ndim:
        axis = big.ndim - small.ndim
    shape = [1] * axis + list(small.shape) + [1] * (big.ndim - axis - small.ndim)
    small = small.reshape(shape)
    return (small, big) if swap else (big, small)


def _python_mod(a, b):  # Paddle's RemainderFunctor: the result takes the divisor's sign
    return np.mod(a, b)


FUNCS = {
    "elementwise_add": np.add,
    "elementwise_sub": np.subtract,
    "elementwise_mul": np.multiply,
    "elementwise_div": np.divide,
    "elementwise_max": np.maximum,
    "elementwise_min": np.minimum,
    "elementwise_pow": np.power,
    "elementwise_mod": _python_mod,
    "elementwise_floordiv": np.floor_divide,
    "elementwise_fmax": np.fmax,
    "elementwise_fmin": np.fmin,
}

# (x shape, y shape, axis): the unit tests' broadcasting cases
SHAPES = [
    ([13, 17], [13, 17], -1),
    ([2, 3, 4], [1], -1),           # scalar-like Y
    ([100, 2, 3], [100], 0),        # broadcast_0
    ([2, 100, 3], [100], 1),        # broadcast_1
    ([2, 3, 100], [100], -1),       # broadcast_2
    ([2, 10, 12, 1], [10, 12], 1),  # broadcast_3
    ([100, 2, 1, 2], [100, 1], 0),  # broadcast_4
    ([10, 3, 12], [10, 1, 12], -1),  # broadcast_5
    ([2, 12, 3, 5], [2, 12, 1, 5], -1),  # broadcast_6
    ([2, 10, 12], [10, 12], 1),     # rowwise_0
    ([100, 1], [1], 1),             # rowwise_1
    ([100, 2, 3], [100, 1, 1], -1),  # channelwise
    ([2, 3, 100], [1, 1, 100], -1),  # commonuse_1
    ([10, 3, 1, 4], [10, 1, 12, 1], -1),  # commonuse_2
    ([10, 12], [2, 3, 10, 12], 2),  # xsize_lessthan_ysize
    ([], [], -1), ([], [13, 17], -1), ([13, 17], [], -1),  # 0-d
    ([0, 3], [0, 3], -1),           # empty, same dims
]
# Paddle 2.6.2 refuses an empty output whose operands differ in dims (PreconditionNotMet)
EMPTY_BROADCAST = [([0, 3], [3], -1), ([0, 3], [1, 3], -1), ([3], [0, 3], -1), ([2, 0], [2], 0)]
# the ops whose unit tests run every broadcasting case; the others run the first few
FULL = {"elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div"}

# inputs per op, as the unit tests draw them (division away from 0, max / min away from ties)
RANGES = {"elementwise_div": (0.1, 1), "elementwise_pow": (1, 2),
          "elementwise_mod": (-1000, 1000), "elementwise_floordiv": (-100, 100)}

# CPU dtypes Paddle registers beyond float32 / float64 (cpu_ops.json)
EXTRA = {
    "elementwise_add": ["int16", "int32", "int64", "complex64", "complex128"],
    "elementwise_sub": ["int16", "int32", "int64", "complex64", "complex128", "bfloat16"],
    "elementwise_mul": ["bool", "int32", "int64", "complex64", "complex128", "bfloat16"],
    "elementwise_div": ["int32", "int64", "complex64", "complex128"],
    "elementwise_max": ["int32", "int64", "bfloat16"],
    "elementwise_min": ["int32", "int64", "bfloat16"],
    "elementwise_pow": ["int32", "int64", "bfloat16"],
    "elementwise_mod": ["int32", "int64"],
    "elementwise_floordiv": ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16"],
    "elementwise_fmax": ["int32", "int64"],
    "elementwise_fmin": ["int32", "int64"],
}


# fmax / fmin have no `axis` attribute in Paddle 2.6.2's OpProto: numpy broadcasting only
NO_AXIS = {"elementwise_fmax", "elementwise_fmin"}


def _draw(op, shape, dtype, seed):
    r = rs(seed)
    lo, hi = RANGES.get(op, (0.1, 1) if op not in ("elementwise_max", "elementwise_min")
                        else (0.5, 1))
    dt = np.dtype(BF16 if dtype == "bfloat16" else dtype)
    if dt.kind == "b":
        return r.randint(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        lo_i = 0 if dt.kind == "u" else -20
        if op == "elementwise_pow":
            return r.randint(0, 4, shape).astype(dt)
        return r.randint(lo_i, 20, shape).astype(dt)
    x = r.uniform(lo, hi, shape)
    if dt.kind == "c":
        x = x + 1j * r.uniform(lo, hi, shape)
    return x.astype(dt)


def _nonzero(y):  # divisors: no zero (Paddle's integer division by zero aborts)
    y = y.copy()
    y[y == 0] = 3
    return y


def _cases():
    out = []
    for n, op in enumerate(FUNCS):
        shapes = SHAPES if op in FULL else SHAPES[:5] + SHAPES[15:]
        for k, (xs, ys, axis) in enumerate(shapes):
            if op in NO_AXIS and axis != -1:
                continue
            for dt in ["float32", "float64"] + ([] if k else EXTRA[op]):
                seed = 1000 * n + 10 * k
                x, y = _draw(op, xs, dt, seed), _draw(op, ys, dt, seed + 1)
                if op in ("elementwise_max", "elementwise_min") and dt.startswith("float"):
                    y = (x + rs(k).choice([-1, 1], x.shape) * rs(k + 1).uniform(0.1, 1, x.shape)
                         ).astype(dt) if xs == ys else y  # the tests keep |x - y| >= 0.1
                if op in ("elementwise_div", "elementwise_mod", "elementwise_floordiv"):
                    y = _nonzero(y)
                if np.dtype(x.dtype).kind in "fc" and x.dtype.itemsize >= 4:
                    a, b = legacy_broadcast(x.astype(np.float64 if x.dtype.kind == "f" else
                                                     np.complex128), y.astype(np.float64 if
                                                     y.dtype.kind == "f" else np.complex128),
                                            axis)
                    expect = {"Out": FUNCS[op](a, b).astype(dt)}
                else:
                    expect = "paddle"
                attrs = {} if op in NO_AXIS else {"axis": axis}
                out.append(Case(f"{op}-{k}-{dt}", op, {"X": x, "Y": y}, attrs, expect))
    return out


# NaN propagation (max / min keep NaN, fmax / fmin drop it), negative integer floordiv / mod,
# float mod of negatives, integer pow with a zero exponent: Paddle's answers.
_NX = np.array([np.nan, 1.0, -2.0, np.inf, -0.0, 3.5], np.float32)
_NY = np.array([1.0, np.nan, -2.0, -np.inf, 0.0, -1.5], np.float32)
_IX = np.array([7, -7, 7, -7, 0, 5, -9], np.int32)
_IY = np.array([2, 2, -2, -2, 3, -3, 4], np.int32)
EDGE = [Case(f"{op}-nan", op, {"X": _NX, "Y": _NY}, {} if op in NO_AXIS else {"axis": -1},
              "paddle")
        for op in ("elementwise_max", "elementwise_min", "elementwise_fmax", "elementwise_fmin",
                   "elementwise_add", "elementwise_pow", "elementwise_div")]
EDGE += [Case(f"{op}-neg-{dt}", op, {"X": _IX.astype(dt), "Y": _IY.astype(dt)}, {"axis": -1},
              "paddle")
         for op in ("elementwise_mod", "elementwise_floordiv", "elementwise_div")
         for dt in ("int32", "int64", "float32")]
EDGE += [Case("elementwise_pow-int-zero-exp", "elementwise_pow",
              {"X": np.array([0, 2, -3, 5], np.int64), "Y": np.array([0, 0, 3, 2], np.int64)},
              {"axis": -1}, "paddle")]

CASES = _cases() + EDGE


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_elementwise(case):
    check("test_elementwise", case)


@pytest.mark.parametrize("op", list(FUNCS))
@pytest.mark.parametrize("xs,ys,axis", EMPTY_BROADCAST)
def test_empty_broadcast_fails_as_paddle(op, xs, ys, axis):
    if op in NO_AXIS and axis != -1:
        pytest.skip("fmax / fmin have no axis")
    attrs = {} if op in NO_AXIS else {"axis": axis}
    with pytest.raises(PreconditionNotMet):
        run_op(op, {"X": np.ones(xs, np.float32), "Y": np.ones(ys, np.float32)}, attrs)


@pytest.mark.parametrize("op,dtype", [("elementwise_add", "float16"), ("elementwise_add", "bool"),
                                      ("elementwise_mod", "bfloat16"),
                                      ("elementwise_max", "int16")])
def test_missing_dtype_is_typed_not_found(op, dtype):
    x = np.ones([2, 3], BF16 if dtype == "bfloat16" else dtype)
    with pytest.raises(NotFound) as info:
        run_op(op, {"X": x, "Y": x}, {"axis": -1})
    assert f"({op})" in str(info.value) and "float32" in str(info.value)
