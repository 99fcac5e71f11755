"""Conformance cases for the comparison, logical and bitwise ops, ported from Paddle's
test/legacy_test/test_compare_op.py (every dtype, 10x7 random inputs with ties, broadcasting,
`axis`), test_logical_op.py (bool and numeric inputs, broadcasting shapes) and
test_bitwise_op.py (randint ranges per dtype, broadcasting [2, 3, 4, 5] with [4, 1] / [2, 3, 4,
5] with [3, 4, 1] ...). References are numpy's; all outputs are exact (bool or integer)."""

from __future__ import annotations

import numpy as np
import pytest

from phi.core.errors import InvalidArgument, NotFound
from fluid_compat import run_op

from .opcase import BF16, Case, check, rs

COMPARE = {"less_than": np.less, "less_equal": np.less_equal, "greater_than": np.greater,
           "greater_equal": np.greater_equal, "equal": np.equal, "not_equal": np.not_equal}
COMPARE_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64",
                  "float16", "bfloat16"]
LOGICAL = {"logical_and": np.logical_and, "logical_or": np.logical_or,
           "logical_xor": np.logical_xor}
LOGICAL_DTYPES = ["bool", "int8", "int16", "int32", "int64", "float32", "float64", "complex64",
                  "complex128"]
BITWISE = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
           "bitwise_xor": np.bitwise_xor}
BITWISE_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64"]

# (x shape, y shape, axis) from the tests' broadcasting cases
SHAPES = [([10, 7], [10, 7], -1), ([2, 3, 4, 5], [4, 1], -1), ([2, 3, 4, 5], [3, 4, 1], -1),
          ([4, 1], [2, 3, 4, 5], -1), ([2, 3, 4, 5], [3, 1, 1], 1), ([10, 7], [], -1),
          ([], [], -1), ([0, 3], [0, 3], -1)]


def _draw(shape, dtype, seed):
    """Values with many ties (the compare tests draw from a small range)."""
    r = rs(seed)
    dt = np.dtype(BF16 if dtype == "bfloat16" else dtype)
    if dt.kind == "b":
        return r.randint(0, 2, shape).astype(bool)
    if dt.kind == "u":
        return r.randint(0, 255, shape).astype(dt)
    if dt.kind == "i":
        info = np.iinfo(dt)
        lo, hi = max(info.min, -10 ** 6), min(info.max, 10 ** 6)
        v = r.randint(lo, hi, shape)
        v.reshape(-1)[::3] = r.randint(-2, 3, v.reshape(-1)[::3].shape)  # small values and 0
        return v.astype(dt)
    v = r.randint(-3, 4, shape).astype(np.float64) / 2  # exact in every float type
    if dt.kind == "c":
        v = v + 1j * r.randint(-1, 2, shape)
    return v.astype(dt)


def _ref(fn, x, y, axis):
    if axis != -1 and x.ndim != y.ndim:
        y = y.reshape(list(y.shape) + [1] * (x.ndim - axis - y.ndim))
    if x.dtype == BF16:
        x, y = x.astype(np.float32), y.astype(np.float32)
    return fn(x, y)


def _binary(table, dtypes, seed0, with_axis):
    out = []
    for n, (op, fn) in enumerate(table.items()):
        for k, (xs, ys, axis) in enumerate(SHAPES):
            if axis != -1 and not with_axis:
                continue
            for dt in dtypes if k in (0, 1) else dtypes[::3]:
                x, y = _draw(xs, dt, seed0 + 100 * n + k), _draw(ys, dt, seed0 + 100 * n + k + 50)
                attrs = {"axis": axis} if with_axis else {}
                out.append(Case(f"{op}-{k}-{dt}", op, {"X": x, "Y": y}, attrs,
                                {"Out": _ref(fn, x, y, axis)}))
    return out


def _unary():
    out = []
    for k, shape in enumerate([[10, 7], [], [0, 2]]):
        for dt in LOGICAL_DTYPES:
            x = _draw(shape, dt, 900 + k)
            out.append(Case(f"logical_not-{k}-{dt}", "logical_not", {"X": x}, {},
                            {"Out": np.logical_not(x)}))
        for dt in BITWISE_DTYPES:
            x = _draw(shape, dt, 950 + k)
            out.append(Case(f"bitwise_not-{k}-{dt}", "bitwise_not", {"X": x}, {},
                            {"Out": np.invert(x)}))
    return out


# NaN compares false except not_equal; +0.0 == -0.0; inf ordering
_FX = np.array([np.nan, 0.0, np.inf, -np.inf, 1.0, np.nan], np.float32)
_FY = np.array([np.nan, -0.0, np.inf, 1.0, np.nan, 2.0], np.float32)
EDGE = [Case(f"{op}-nan", op, {"X": _FX, "Y": _FY}, {}, {"Out": fn(_FX, _FY)})
        for op, fn in COMPARE.items()]
EDGE += [Case(f"{op}-nan", op, {"X": _FX, "Y": _FY}, {}, {"Out": fn(_FX, _FY)})
         for op, fn in LOGICAL.items()]  # NaN is true
# force_cpu is accepted (and means nothing on CPU)
EDGE += [Case("less_than-force_cpu", "less_than", {"X": _FX, "Y": _FY},
              {"force_cpu": True}, {"Out": np.less(_FX, _FY)})]

CASES = (_binary(COMPARE, COMPARE_DTYPES, 0, True) + _binary(LOGICAL, LOGICAL_DTYPES, 1000, False)
         + _binary(BITWISE, BITWISE_DTYPES, 2000, False) + _unary() + EDGE)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_compare_logical(case):
    check("test_compare_logical", case)


# Paddle 2.6.2's compare InferMeta ignores `axis` (trailing alignment): [2, 3] at axis 0 of
# [2, 3, 4, 5] fails there; [4, 1] at axis 0 passes it and fails in the kernel. Both are
# InvalidArgument in Paddle (checked with the wheel), never a crash.
@pytest.mark.parametrize("op", list(COMPARE))
@pytest.mark.parametrize("ys", [[2, 3], [4, 1]])
def test_axis_that_does_not_broadcast(op, ys):
    with pytest.raises(InvalidArgument):
        run_op(op, {"X": np.ones([2, 3, 4, 5], np.float32), "Y": np.ones(ys, np.float32)},
               {"axis": 0})


@pytest.mark.parametrize("op,dtype", [("less_than", "complex64"), ("logical_and", "float16"),
                                      ("bitwise_and", "float32"), ("bitwise_not", "float64"),
                                      ("logical_not", "uint8")])
def test_missing_dtype_is_typed_not_found(op, dtype):
    x = np.ones([2, 3], dtype)
    ins = {"X": x} if op.endswith("_not") else {"X": x, "Y": x}
    with pytest.raises(NotFound) as info:
        run_op(op, ins, {})
    assert f"({op})" in str(info.value) and "int32" in str(info.value)
