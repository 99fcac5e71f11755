"""max / min / prod / all / any and add_n: empty inputs refused as in Paddle, NaN skipped by
max / min, truth of floats, wrapping integer products, size-0 add_n inputs skipped."""

from __future__ import annotations

import numpy as np
import pytest

from phi.core.errors import PhiError
from tests.phi.kernels.conftest import assert_array

NAN = np.nan


def test_max_min_skip_nan(run_op):
    x = np.array([[1, NAN, 3], [NAN, 0, -1], [NAN, NAN, NAN]], np.float32)
    # Paddle 2.6.2: a partial reduction folds with Eigen's scalar rule, so the extreme of the
    # elements after the last NaN wins (min of row 0 is 3; reduce.py _seq_fold)
    assert_array(run_op("max", x, [1]), np.array([3, 0, NAN], np.float32))
    assert_array(run_op("min", x, [1]), np.array([3, -1, NAN], np.float32))
    assert_array(run_op("max", np.array([[4, 2]], np.int64), [], True),
                 np.array([[4]], np.int64))


def test_prod_wraps_and_reduces_all(run_op):
    x = np.array([[2**31 - 1, 2], [3, 4]], np.int32)
    assert_array(run_op("prod", x, [1], False, False), np.array([-2, 12], np.int32))
    assert_array(run_op("prod", x, [0], False, True), np.array(-24, np.int32))


def test_all_any_of_floats(run_op):
    x = np.array([[1.0, NAN], [0.0, 1.0]], np.float32)
    assert_array(run_op("all", x, [1]), np.array([True, False]))
    assert_array(run_op("any", np.zeros((2, 2), np.int32), [], True),
                 np.array([[False]]))


@pytest.mark.parametrize("op", ["max", "min", "all", "any"])
def test_empty_input_is_refused(run_op, op):
    with pytest.raises(PhiError, match="empty|greater than 0"):
        run_op(op, np.zeros((0, 3), np.float32), [0])


def test_add_n(run_op):
    a = np.array([1, 2], np.float16)
    assert_array(run_op("add_n", [a, a, np.array([0.5, 0.25], np.float16)]),
                 np.array([2.5, 4.25], np.float16))
    assert_array(run_op("add_n", [np.zeros((0,), np.int64), np.array([3], np.int64)]),
                 np.array([3], np.int64))
    with pytest.raises(PhiError, match="same shape"):
        run_op("add_n", [a, np.ones(3, np.float16)])
