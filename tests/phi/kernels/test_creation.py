"""full and full_like: Scalar conversion to the dtype, full_like's range check, shapes."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from phi.core.errors import InvalidArgument
from tests.phi.kernels.conftest import assert_array

BF16 = ml_dtypes.bfloat16
I32_MIN = -(2**31)


# (id, shape, value, dtype, expected)
FULL = [
    ("f32", [2, 2], 0.1, "float32", np.full((2, 2), np.float32(0.1))),
    # Scalar::to<int>() truncates toward zero
    ("i32_truncates", [3], 2.7, "int32", np.array([2, 2, 2], np.int32)),
    ("i32_negative", [1], -2.7, "int32", np.array([-2], np.int32)),
    ("i32_nan", [1], float("nan"), "int32", np.array([I32_MIN], np.int32)),
    # a Python int is held as int64 and narrowed by wrapping
    ("i8_wraps", [2], 300, "int8", np.array([44, 44], np.int8)),
    ("u8_minus1", [1], -1, "uint8", np.array([255], np.uint8)),
    ("bool", [2], 0.5, "bool", np.array([True, True], bool)),
    ("f16", [1], 0.1, "float16", np.array([0.1], np.float16)),
    # bfloat16 truncates: 1.005859375 -> 1.0
    ("bf16_truncates", [1], 1.005859375, "bfloat16", np.array([1.0], BF16)),
    ("c64", [1], 1 + 2j, "complex64", np.array([1 + 2j], np.complex64)),
    ("0d", [], 3.0, "float64", np.array(3.0, np.float64)),
    ("size0", [0, 3], 1.0, "float32", np.zeros((0, 3), np.float32)),
]


@pytest.mark.parametrize(("shape", "value", "dtype", "expected"), [c[1:] for c in FULL],
                         ids=[c[0] for c in FULL])
def test_full(run_op, shape, value, dtype, expected):
    assert_array(run_op("full", shape, value, dtype), expected)


def test_full_default_dtype_is_float32(run_op):
    assert_array(run_op("full", [2], 1), np.ones(2, np.float32))


@pytest.mark.parametrize("shape", [[-2, 3], [-1, 2]])
def test_full_negative_shape(run_op, shape):
    with pytest.raises(InvalidArgument):
        run_op("full", shape, 1.0, "float32")


X = np.array([[1.5, -2.0, 3.0]], np.float32)

# (id, x, value, dtype, expected)
FULL_LIKE = [
    ("keeps_dtype", X, 7, "undefined", np.full((1, 3), 7, np.float32)),
    ("int32", X, 7.9, "int32", np.full((1, 3), 7, np.int32)),
    ("bool_half", X, 0.5, "bool", np.full((1, 3), True)),
    ("nan_float", X, float("nan"), "float64", np.full((1, 3), np.nan)),
    ("inf_f16", X, float("inf"), "float16", np.full((1, 3), np.inf, np.float16)),
    # NaN passes the range check, then static_cast<int> gives INT_MIN
    ("nan_int32", X, float("nan"), "int32", np.full((1, 3), I32_MIN, np.int32)),
    # the range check runs in float: 2**31 equals float(INT_MAX) and passes; the conversion of
    # 2147483648.0 to int then overflows to INT_MIN
    ("int32_edge", X, 2147483648.0, "int32", np.full((1, 3), I32_MIN, np.int32)),
    ("complex", X, 1 - 1j, "complex128", np.full((1, 3), 1 - 1j, np.complex128)),
    ("bf16", X, 1.005859375, "bfloat16", np.full((1, 3), 1.0, BF16)),
    ("size0", np.zeros((0, 2), np.int64), 5, "undefined", np.zeros((0, 2), np.int64)),
    ("0d", np.array(1.0, np.float64), 2, "int64", np.array(2, np.int64)),
]


@pytest.mark.parametrize(("x", "value", "dtype", "expected"), [c[1:] for c in FULL_LIKE],
                         ids=[c[0] for c in FULL_LIKE])
def test_full_like(run_op, x, value, dtype, expected):
    assert_array(run_op("full_like", x, value, dtype), expected)


@pytest.mark.parametrize(
    ("value", "dtype"),
    [(300, "uint8"), (-1, "uint8"), (2, "bool"), (-0.5, "bool"), (1e39, "float32"),
     (70000.0, "float16"), (2.0**40, "int32")],
)
def test_full_like_value_out_of_range(run_op, value, dtype):
    with pytest.raises(InvalidArgument, match="The filled value is out of range for target type"):
        run_op("full_like", X, value, dtype)
