"""where, argmax / argmin, argsort, topk, cumsum: NaN, ties, 0-D and the order of equal values
that Paddle 2.6.2's CPU kernels leave (recorded by tools/fixtures/gen_sort_ties.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from phi.backends import get_context
from phi.common import CPUPlace
from phi.kernels.argsort import argsort as search_argsort
from phi.kernels.topk import topk as search_topk
from tests.phi.kernels.conftest import assert_array

NAN = np.nan
TIES = Path(__file__).resolve().parent / "data_paddle" / "sort_ties_paddle.npz"


def _ties_keys():
    with np.load(TIES) as z:
        return [k for k in z.files if not k.startswith("x")]


@pytest.mark.parametrize("key", _ties_keys())
def test_order_of_equal_values_is_paddles(key):
    ctx = get_context(CPUPlace())
    with np.load(TIES) as z:
        want = z[key].astype(np.int64)
        if key.startswith("as"):
            n, desc = key[2:].split("_")
            got = search_argsort(ctx, z[f"x{n}"], 1, bool(int(desc)))[1]
        else:
            n, k, largest, srt = key[2:].split("_")
            got = search_topk(ctx, z[f"x{n}"], int(k), 1, bool(int(largest)), bool(int(srt)))[1]
    assert_array(got, want)


@pytest.mark.parametrize("largest", [True, False])
def test_topk_ties_below_the_top_k_leave_the_result_unique(run_op, largest):
    # the k + 1 values that decide are distinct, every value below them is tied (and NaN-free):
    # the result is the k distinct extremes at their only positions, whatever algorithm sorts
    rng = np.random.default_rng(7)
    for _ in range(50):
        n = int(rng.integers(3, 40))
        k = int(rng.integers(1, n))
        decide = rng.permutation(np.arange(100.0, 100.0 + k + 1))
        rest = np.full(n - k - 1, 0.0 if largest else 500.0)
        row = rng.permutation(np.concatenate([decide, rest])).astype(np.float32)
        values, idx = run_op("topk", row, k, -1, largest)
        want = np.sort(decide)[::-1][:k] if largest else np.sort(decide)[:k]
        assert_array(values, want.astype(np.float32))
        assert_array(idx, np.array([int(np.flatnonzero(row == v)[0]) for v in want], np.int64))


def test_argmax_argmin_skip_nan_and_take_the_first(run_op):
    x = np.array([[1.0, NAN, 3.0, 3.0], [2.0, 2.0, -1.0, NAN]], np.float32)
    assert_array(run_op("argmax", x, 1), np.array([2, 0], np.int64))
    assert_array(run_op("argmin", x, 1), np.array([0, 2], np.int64))
    # flatten: a 0-D result, or rank ones with keepdims; dtype int32 on request
    assert_array(run_op("argmax", np.array([[1, 2], [3, 0]], np.int32), 0, True, True,
                        "int32"), np.array([[2]], np.int32))
    assert_array(run_op("argmin", np.array(3.0, np.float64), 0), np.array(0, np.int64))


def test_topk_and_argsort_values(run_op):
    x = np.array([1.0, 3.0, NAN, 3.0, 2.0], np.float32)
    values, idx = run_op("topk", x, 3)
    assert_array(values, np.array([NAN, 3.0, 3.0], np.float32))
    assert_array(idx, np.array([2, 1, 3], np.int64))
    values, idx = run_op("topk", x, 2, -1, False)
    assert_array(idx, np.array([0, 4], np.int64))
    _out, idx = run_op("argsort", np.array([1.0, NAN, 0.0, -1.0], np.float64), -1, True)
    assert_array(idx, np.array([1, 0, 2, 3], np.int64))
    with pytest.raises(Exception, match="k"):
        run_op("topk", x, 6)


@pytest.mark.parametrize(("args", "want"), [
    ((np.array([[1, 2], [3, 4]], np.int32), -1, True), np.array([1, 3, 6, 10], np.int32)),
    ((np.array([1.0, 2.0, 3.0], np.float32), 0, False, True), np.array([0, 1, 3], np.float32)),
    ((np.array([1.0, 2.0, 3.0], np.float32), 0, False, False, True),
     np.array([6, 5, 3], np.float32)),
    ((np.array([1.0, 2.0, 3.0], np.float32), 0, False, True, True),
     np.array([5, 3, 0], np.float32)),
    # exclusive is the shifted scan, not cumsum - x (an inf would make that NaN)
    ((np.array([np.inf, 1.0], np.float32), 0, False, True), np.array([0, np.inf], np.float32)),
    ((np.array(5.0, np.float32), 0, True), np.array([5.0], np.float32)),
    ((np.zeros((0, 3), np.float32), 1), np.zeros((0, 3), np.float32)),
], ids=["flatten_i32", "exclusive", "reverse", "exclusive_reverse", "exclusive_inf",
        "0d_flatten", "size0"])
def test_cumsum(run_op, args, want):
    assert_array(run_op("cumsum", *args), want)
