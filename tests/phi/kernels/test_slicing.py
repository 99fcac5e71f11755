"""slice / strided_slice against Paddle 2.6.2 on every combination of bounds and strides
(recorded by tools/fixtures/gen_slice_bounds.py): same shapes and values, and an error where
Paddle raised one."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat.imperative import run_op
from phi.core.errors import PhiError

DATA = Path(__file__).resolve().parent / "data_paddle" / "slice_bounds_paddle.json.gz"
CASES = json.loads(gzip.decompress(DATA.read_bytes()))
X = np.arange(30, dtype=np.float32).reshape(5, 6)


def _id(case) -> str:
    op, a, _ = case
    return f"{op}-{a['starts']}-{a['ends']}-{a.get('strides', '')}-{a['decrease_axis']}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_bounds_match_paddle(case):
    op, attrs, want = case
    if want == "ERR":
        with pytest.raises(PhiError):
            run_op(op, {"Input": X}, attrs)
        return
    shape, values = want
    got = run_op(op, {"Input": X}, attrs)["Out"][0]
    assert got.shape == tuple(shape)
    np.testing.assert_array_equal(got.reshape(-1), np.array(values, np.float32))


def test_bounds_from_tensors():
    out = run_op("slice", {"Input": X, "StartsTensor": np.array([1, -3], np.int64),
                           "EndsTensorList": [np.array([3], np.int32), np.array([6], np.int64)]},
                 {"axes": [0, 1], "starts": [], "ends": []})["Out"][0]
    np.testing.assert_array_equal(out, X[1:3, 3:6])
    out = run_op("strided_slice", {"Input": X, "StridesTensor": np.array([-2], np.int32)},
                 {"axes": [1], "starts": [5], "ends": [-1], "strides": []})["Out"][0]
    np.testing.assert_array_equal(out, X[:, 5::-2])


def test_negative_decrease_axis_counts_from_the_end():
    # decrease_axis -1 drops the last axis (the Paddle cases above decrease axes 0 and 1 only)
    assert X.ndim == 2
    out = run_op("slice", {"Input": X}, {"axes": [1], "starts": [2], "ends": [3],
                                         "decrease_axis": [-1]})["Out"][0]
    assert out.shape == (X.shape[0],)
    np.testing.assert_array_equal(out, X[:, 2])
    out = run_op("strided_slice", {"Input": X}, {"axes": [0], "starts": [1], "ends": [2],
                                                 "strides": [1], "decrease_axis": [-2]})
    np.testing.assert_array_equal(out["Out"][0], X[1])
