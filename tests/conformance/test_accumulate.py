"""Conformance cases for cumsum, sum (add_n) and mean (mean_all), ported from Paddle's
test/legacy_test/test_cumsum_op.py (axis, flatten, exclusive, reverse on [5, 6, 10] and
[5, 6, 5], 0-d, integer inputs), test_sum_op.py (three [3, 40] inputs, one input, fp16 / bf16,
0-d) and test_mean_op.py ([10, 10] random, bf16, complex).

References are numpy over float64; float16 / bfloat16 outputs are Paddle 2.6.2's own
("paddle", data/test_accumulate.npz: float32 accumulation truncated back to half)."""

from __future__ import annotations

import numpy as np
import pytest

from phi.core.errors import NotFound
from fluid_compat import run_op

from .opcase import BF16, Case, check, rs


def _cumsum_ref(x, axis=-1, flatten=False, exclusive=False, reverse=False):
    if flatten:
        x, axis = x.reshape(-1), 0
    if x.ndim == 0:
        return x.copy()
    if reverse:
        x = np.flip(x, axis)
    c = np.cumsum(x, axis=axis)
    if exclusive:
        c = c - x
    return np.flip(c, axis) if reverse else c


def _cumsum_cases():
    out = []
    attr_sets = [{}, {"axis": 2}, {"axis": 1}, {"axis": 0}, {"axis": -2},
                 {"axis": 2, "reverse": True}, {"axis": 2, "exclusive": True},
                 {"axis": 1, "exclusive": True, "reverse": True}, {"flatten": True},
                 {"flatten": True, "reverse": True}]
    for k, attrs in enumerate(attr_sets):
        for dt in ("float32", "float64", "int16", "int32", "int64"):
            shape = [5, 6, 10] if k % 2 else [5, 6, 5]
            r = rs(k)
            x = (r.random_sample(shape) if dt.startswith("float") else
                 r.randint(-20, 20, shape)).astype(dt)
            ref = _cumsum_ref(x.astype(np.float64 if dt.startswith("float") else np.int64),
                              **attrs)
            out.append(Case(f"cumsum-{k}-{dt}", "cumsum", {"X": x}, attrs,
                            {"Out": ref.astype(dt)}, tol=dict(rtol=1e-5, atol=1e-5)
                            if dt == "float32" else None))
    x = np.array(2.5, np.float32)
    out.append(Case("cumsum-0d", "cumsum", {"X": x}, {"axis": 0}, {"Out": x.copy()}))
    x = np.array([[1.0, np.nan, 2.0], [np.inf, -np.inf, 1.0]], np.float32)
    out.append(Case("cumsum-nan-inf", "cumsum", {"X": x}, {"axis": 1}, "paddle"))
    return out


def _sum_cases():
    out = []
    for k, n in enumerate([3, 1, 2]):
        for dt in ("float32", "float64", "int32", "int64", "complex64", "complex128",
                   "float16", "bfloat16"):
            d = np.dtype(BF16 if dt == "bfloat16" else dt)
            xs = []
            for i in range(n):
                r = rs(100 * k + i)
                v = r.random_sample([3, 40]) if d.kind != "i" else r.randint(-50, 50, [3, 40])
                if d.kind == "c":
                    v = v + 1j * r.random_sample([3, 40])
                xs.append(v.astype(d))
            if dt in ("float16", "bfloat16"):
                expect = "paddle"
            else:
                acc = sum(x.astype(np.complex128 if d.kind == "c" else np.float64) for x in xs)
                expect = {"Out": acc.astype(d)}
            out.append(Case(f"sum-{k}-{dt}", "sum", {"X": xs}, {}, expect))
    # empty inputs are skipped; all empty: a 0-D zero (AddNInferMeta; checked with the wheel)
    out.append(Case("sum-empty-skipped", "sum", {"X": [np.zeros([0, 3], np.float32),
                                                     np.ones([2, 3], np.float32)]}, {},
                    {"Out": np.ones([2, 3], np.float32)}))
    out.append(Case("sum-all-empty", "sum", {"X": [np.zeros([0, 3], np.float32)] * 2}, {},
                    {"Out": np.array(0.0, np.float32)}))
    xs = [np.array(1.5, np.float32), np.array(-2.0, np.float32)]
    out.append(Case("sum-0d", "sum", {"X": xs}, {}, {"Out": np.array(-0.5, np.float32)}))
    return out


def _mean_cases():
    out = []
    for dt in ("float32", "float64", "complex64", "complex128", "bfloat16"):
        d = np.dtype(BF16 if dt == "bfloat16" else dt)
        v = rs(300).random_sample([10, 10])
        if d.kind == "c":
            v = v + 1j * rs(301).random_sample([10, 10])
        x = v.astype(d)
        if dt == "bfloat16":
            expect = "paddle"
        else:
            expect = {"Out": np.asarray(x.astype(np.complex128 if d.kind == "c" else
                                                 np.float64).mean()).astype(d)}
        out.append(Case(f"mean-{dt}", "mean", {"X": x}, {}, expect))
    x = np.array(3.0, np.float32)
    out.append(Case("mean-0d", "mean", {"X": x}, {}, {"Out": np.array(3.0, np.float32)}))
    return out


CASES = _cumsum_cases() + _sum_cases() + _mean_cases()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_accumulate(case):
    check("test_accumulate", case)


@pytest.mark.parametrize("op,ins", [
    ("cumsum", {"X": np.ones([2, 3], np.float16)}),
    ("sum", {"X": [np.ones([2, 3], np.int16)]}),
    ("mean", {"X": np.ones([2, 3], np.int32)}),
])
def test_missing_dtype_is_typed_not_found(op, ins):
    with pytest.raises(NotFound) as info:
        run_op(op, ins, {})
    assert f"({op})" in str(info.value) and "float32" in str(info.value)
