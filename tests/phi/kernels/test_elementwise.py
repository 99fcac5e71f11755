"""add, subtract, multiply, divide, maximum, minimum: values numpy alone would get wrong."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from phi.core.errors import InvalidArgument
from tests.phi.kernels.conftest import assert_array

BF16 = ml_dtypes.bfloat16
I32_MIN, I32_MAX = -(2**31), 2**31 - 1
NAN = np.nan


def a(values, dtype):
    return np.array(values, dtype=dtype)


# (id, op, x, y, expected) -- expected carries the exact dtype and shape
CASES = [
    # integer overflow wraps, as the C++ functors do
    ("add_int32_wraps", "add", a([I32_MAX, I32_MIN], np.int32), a([1, -1], np.int32),
     a([I32_MIN, I32_MAX], np.int32)),
    ("add_int16_wraps", "add", a([32767], np.int16), a([1], np.int16), a([-32768], np.int16)),
    ("multiply_int32_wraps", "multiply", a([65536], np.int32), a([65536], np.int32),
     a([0], np.int32)),
    ("subtract_int64_broadcast", "subtract", a([[10], [20]], np.int64), a([1, 2, 3], np.int64),
     a([[9, 8, 7], [19, 18, 17]], np.int64)),
    # broadcasting (Paddle's axis = -1), 0-D and size-0 operands
    ("add_bidirectional", "add", a([[1.0], [2.0]], np.float32), a([10.0, 20.0, 30.0], np.float32),
     a([[11, 21, 31], [12, 22, 32]], np.float32)),
    ("add_0d_0d", "add", a(1.5, np.float64), a(2.0, np.float64), a(3.5, np.float64)),
    ("add_0d_y", "add", a([1, 2], np.int32), a(5, np.int32), a([6, 7], np.int32)),
    # an empty output needs operands of equal dims: Paddle 2.6.2 refuses to broadcast into one
    # (PreconditionNotMet; tests/conformance/test_elementwise.py checks that)
    ("add_size0", "add", np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32),
     np.zeros((0, 3), np.float32)),
    ("multiply_size0", "multiply", np.zeros((2, 0), np.float64),
     np.ones((2, 0), np.float64), np.zeros((2, 0), np.float64)),
    ("add_inf", "add", a([np.inf, np.inf], np.float32), a([-np.inf, 1], np.float32),
     a([NAN, np.inf], np.float32)),
    ("add_complex", "add", a([1 + 2j], np.complex64), a([3 - 1j], np.complex64),
     a([4 + 1j], np.complex64)),
    # bool multiply is logical and (MultiplyFunctor<bool>)
    ("multiply_bool", "multiply", a([True, True, False, False], bool),
     a([True, False, True, False], bool), a([True, False, False, False], bool)),
    # integer divide truncates toward zero (C++), numpy would floor
    ("divide_int32_truncates", "divide", a([7, -7, 7, -7, 0], np.int32),
     a([2, 2, -2, -2, 3], np.int32), a([3, -3, -3, 3, 0], np.int32)),
    ("divide_int64_broadcast", "divide", a([[-9], [9]], np.int64), a([4, -4], np.int64),
     a([[-2, 2], [2, -2]], np.int64)),
    # int8 promotes to int in C++: -128 / -1 = 128, stored back as -128
    ("divide_int8_wraps", "divide", a([-128, -7], np.int8), a([-1, 2], np.int8),
     a([-128, -3], np.int8)),
    ("divide_uint8", "divide", a([255, 7], np.uint8), a([2, 7], np.uint8), a([127, 1], np.uint8)),
    ("divide_int32_min_by_minus1", "divide", a([I32_MIN], np.int32), a([-1], np.int32),
     a([I32_MIN], np.int32)),
    # bool / true is x (C++ promotes to int)
    ("divide_bool", "divide", a([True, False], bool), a([True, True], bool),
     a([True, False], bool)),
    # float division by zero follows IEEE
    ("divide_float_by_zero", "divide", a([1.0, -1.0, 0.0], np.float32), a([0.0, 0.0, 0.0],
                                                                           np.float32),
     a([np.inf, -np.inf, NAN], np.float32)),
    ("divide_int_size0", "divide", np.zeros((0,), np.int32), np.zeros((0,), np.int32),
     np.zeros((0,), np.int32)),
    # MaximumFunctor a > b ? a : b with (a, b) = (x, y): a NaN in x loses, in y wins
    ("maximum_nan_same_rank", "maximum", a([NAN, 1.0, NAN], np.float32),
     a([1.0, NAN, NAN], np.float32), a([1.0, NAN, NAN], np.float32)),
    ("minimum_nan_same_rank", "minimum", a([NAN, 1.0], np.float64), a([1.0, NAN], np.float64),
     a([1.0, NAN], np.float64)),
    # x of lower rank: Paddle's CPU path calls the functor as f(y, x), so the roles swap
    ("maximum_nan_x_lower_rank", "maximum", a([NAN, 1.0], np.float32),
     a([[1.0, NAN]], np.float32), a([[NAN, 1.0]], np.float32)),
    ("minimum_nan_x_lower_rank", "minimum", a([NAN, 1.0], np.float32),
     a([[1.0, NAN]], np.float32), a([[NAN, 1.0]], np.float32)),
    ("maximum_int64_broadcast", "maximum", a([[1], [5]], np.int64), a([2, 4], np.int64),
     a([[2, 4], [5, 5]], np.int64)),
    ("minimum_int32", "minimum", a([I32_MIN, 3], np.int32), a([0, 2], np.int32),
     a([I32_MIN, 2], np.int32)),
    # bfloat16 results are truncated to bfloat16 (Paddle's CPU bfloat16(float)), not rounded:
    # 1 - (-0.005859375) = 1.005859375 rounds to 1.0078125 but truncates to 1.0
    ("subtract_bf16_truncates", "subtract", a([1.0], BF16), a([-0.005859375], BF16),
     a([1.0], BF16)),
    # 1.0078125 * 1.75 = 1.763671875: nearest bf16 is 1.765625, truncation gives 1.7578125
    ("multiply_bf16_truncates", "multiply", a([1.0078125], BF16), a([1.75], BF16),
     a([1.7578125], BF16)),
    ("maximum_bf16", "maximum", a([1.5, -2.0], BF16), a([1.0, -1.0], BF16), a([1.5, -1.0], BF16)),
]


@pytest.mark.parametrize(("op", "x", "y", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_values(run_op, op, x, y, expected):
    assert_array(run_op(op, x, y), expected)


@pytest.mark.parametrize(
    ("x", "y", "sign_bit"),
    [
        # a > b is false for -0.0 vs 0.0, so b is returned whatever its sign
        (-0.0, 0.0, False),
        (0.0, -0.0, True),
    ],
)
def test_maximum_signed_zero_returns_second_operand(run_op, x, y, sign_bit):
    got = run_op("maximum", np.array([x], np.float32), np.array([y], np.float32))
    assert got[0] == 0.0 and bool(np.signbit(got[0])) is sign_bit


@pytest.mark.parametrize(
    ("x", "y"),
    [
        (np.array([1, 2], np.int32), np.array([1, 0], np.int32)),
        (np.array([1], np.int64), np.array([[3], [0]], np.int64)),  # y of higher rank too
        (np.array([5], np.uint8), np.array([0], np.uint8)),
        (np.array([True], bool), np.array([False], bool)),
    ],
)
def test_integer_division_by_zero_raises(run_op, x, y):
    with pytest.raises(InvalidArgument, match="Integer division by zero encountered"):
        run_op("divide", x, y)


def test_broadcast_mismatch_raises(run_op):
    with pytest.raises(InvalidArgument, match=r"Broadcast dimension mismatch.*X = \[2, 3\].*"
                                              r"Y = \[4\]"):
        run_op("add", np.ones((2, 3), np.float32), np.ones(4, np.float32))


def test_output_does_not_alias_inputs(run_op):
    x = np.ones(3, np.float32)
    out = run_op("add", x, np.zeros(3, np.float32))
    out[0] = 5.0
    assert x[0] == 1.0
