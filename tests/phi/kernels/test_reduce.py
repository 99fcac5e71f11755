"""mean and sum: Paddle's integer/bool mean, sum's output dtype, axes rules, 0-D and size-0."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from phi.core.errors import InvalidArgument
from tests.phi.kernels.conftest import assert_array

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def a(values, dtype):
    return np.array(values, dtype=dtype)


# (id, x, axis, keepdim, expected)
MEAN = [
    ("axis1", X, [1], False, X.mean(axis=1)),
    ("keepdim", X, [0, 2], True, X.mean(axis=(0, 2), keepdims=True)),
    ("negative_and_duplicate_axes", X, [-1, 2], False, X.mean(axis=2)),
    ("all_axes_is_0d", X, [0, 1, 2], False, np.array(X.mean(), np.float32)),
    ("empty_axis_is_all", X, [], False, np.array(X.mean(), np.float32)),
    ("empty_axis_keepdim", X, [], True, X.mean(keepdims=True)),
    ("0d", np.array(4.0, np.float64), [], False, np.array(4.0, np.float64)),
    ("0d_axis0", np.array(4.0, np.float64), [0], True, np.array(4.0, np.float64)),
    ("complex", a([1 + 1j, 3 - 1j], np.complex64), [0], False, np.array(2 + 0j, np.complex64)),
    # integers: Eigen sums in T and divides in T, truncating toward zero (numpy would give 1.5
    # as float64, and floor division -2)
    ("int32_truncates", a([1, 2], np.int32), [0], False, np.array(1, np.int32)),
    ("int64_truncates_negative", a([-1, -2], np.int64), [], False, np.array(-1, np.int64)),
    ("int32_sum_wraps", a([2**30] * 4, np.int32), [0], False, np.array(0, np.int32)),
    ("int32_axis", a([[1, 2, 4], [5, 7, 9]], np.int32), [1], True,
     a([[2], [7]], np.int32)),
    # bool: Eigen's or-accumulation divided by bool(count): the mean of bools is any()
    ("bool_any", a([[True, False, False], [False, False, False]], bool), [1], False,
     a([True, False], bool)),
]


@pytest.mark.parametrize(("x", "axis", "keepdim", "expected"), [c[1:] for c in MEAN],
                         ids=[c[0] for c in MEAN])
def test_mean(run_op, x, axis, keepdim, expected):
    assert_array(run_op("mean", x, axis, keepdim), expected, rtol=1e-6)


# (id, x, axis, dtype, keepdim, expected)
SUM = [
    ("f32", X, [1], "undefined", False, X.sum(axis=1)),
    ("all", X, [], "undefined", False, np.array(X.sum(), np.float32)),
    ("keepdim", X, [0, -1], "undefined", True, X.sum(axis=(0, 2), keepdims=True)),
    # bool and int32 sum to int64 by default
    ("bool_counts", a([[True, True], [False, True]], bool), [0], "undefined", False,
     a([1, 2], np.int64)),
    ("int32_to_int64", a([2**31 - 1, 1], np.int32), [], "undefined", False,
     np.array(2**31, np.int64)),
    # other integer types keep their dtype and wrap
    ("int8_wraps", a([100, 100], np.int8), [0], "undefined", False, np.array(-56, np.int8)),
    ("int16", a([[1, 2], [3, 4]], np.int16), [1], "undefined", False, a([3, 7], np.int16)),
    # an explicit dtype casts x first (static_cast: 1.9 -> 1)
    ("cast_first", a([1.9, 2.9], np.float32), [0], "int32", False, np.array(3, np.int32)),
    ("bool_as_bool_is_or", a([True, True], bool), [0], "bool", False, np.array(True)),
    ("int32_to_f64", a([1, 2], np.int32), [0], "float64", False, np.array(3.0)),
    ("f16", a([0.5, 0.25], np.float16), [0], "undefined", False, np.array(0.75, np.float16)),
    ("bf16", a([1.0, 0.0078125], ml_dtypes.bfloat16), [0], "undefined", False,
     np.array(1.0078125, ml_dtypes.bfloat16)),
    ("0d", np.array(3, np.int64), [], "undefined", False, np.array(3, np.int64)),
    ("nan", a([np.nan, 1.0], np.float32), [0], "undefined", False, np.array(np.nan, np.float32)),
]


@pytest.mark.parametrize(("x", "axis", "dtype", "keepdim", "expected"), [c[1:] for c in SUM],
                         ids=[c[0] for c in SUM])
def test_sum(run_op, x, axis, dtype, keepdim, expected):
    assert_array(run_op("sum", x, axis, dtype, keepdim), expected, rtol=1e-6)


@pytest.mark.parametrize("op", ["mean", "sum"])
@pytest.mark.parametrize("x", [np.zeros((0, 3), np.float32), np.zeros((2, 0), np.int64)])
def test_empty_input_is_refused(run_op, op, x):
    # Paddle 2.6.2's ReduceKernelImpl: "Tensor need be reduced must not empty." (checked with
    # the wheel for sum and mean, every dtype, dim and reduce_all; tests/conformance)
    with pytest.raises(InvalidArgument, match="must not empty"):
        run_op(op, x, [0])


@pytest.mark.parametrize("op", ["mean", "sum"])
@pytest.mark.parametrize(("x", "axis"), [(X, [3]), (X, [-4]), (np.array(1.0, np.float32), [1])])
def test_axis_out_of_range(run_op, op, x, axis):
    with pytest.raises(InvalidArgument):
        run_op(op, x, axis)
