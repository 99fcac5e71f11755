"""relu, sigmoid, tanh, exp: NaN, signed zeros, overflow, integer exp, 0-D and size-0."""

from __future__ import annotations

import numpy as np
import pytest

from tests.phi.kernels.conftest import assert_array

NAN, INF = np.nan, np.inf
I32_MIN = -(2**31)


def a(values, dtype):
    return np.array(values, dtype=dtype)


CASES = [
    # ReluCPUFunctor v > 0 ? v : 0: NaN -> 0 (numpy's maximum would keep NaN)
    ("relu_nan_inf", "relu", a([NAN, -INF, INF, -1.5, 2.5], np.float32),
     a([0, 0, INF, 0, 2.5], np.float32), {}),
    ("relu_f64_0d", "relu", a(-3.0, np.float64), a(0.0, np.float64), {}),
    ("relu_size0", "relu", np.zeros((0, 4), np.float32), np.zeros((0, 4), np.float32), {}),
    ("sigmoid_saturates", "sigmoid", a([-1000.0, 0.0, 1000.0, NAN], np.float32),
     a([0.0, 0.5, 1.0, NAN], np.float32), {}),
    ("sigmoid_f64", "sigmoid", a([np.log(3.0)], np.float64), a([0.75], np.float64),
     {"rtol": 1e-15}),
    ("sigmoid_complex", "sigmoid", a([1j * np.pi / 2], np.complex128),
     a([1 / (1 + np.exp(-1j * np.pi / 2))], np.complex128), {"rtol": 1e-15}),
    ("tanh_limits", "tanh", a([-INF, INF, NAN, 20.0], np.float32), a([-1, 1, NAN, 1], np.float32),
     {}),
    ("tanh_0d", "tanh", a(0.5, np.float64), a(np.tanh(0.5), np.float64), {"rtol": 1e-15}),
    ("exp_f32", "exp", a([0.0, 1.0, -INF, INF, 100.0], np.float32),
     a([1.0, np.e, 0.0, INF, INF], np.float32), {"rtol": 1e-6}),
    # float16 exp computed in float and converted back by truncation as Paddle's CPU does:
    # e -> 2.716796875 (round-to-nearest would give 2.71875); e**12 overflows float16
    ("exp_f16", "exp", a([0.0, 1.0, 12.0], np.float16), a([1.0, 2.716796875, INF], np.float16),
     {"rtol": 0, "atol": 0}),
    # int exp writes float32 (Paddle 2.6.2, checked with the wheel): e**100 overflows float32
    ("exp_int32", "exp", a([0, 1, 2, -1, 100], np.int32),
     a([1.0, np.e, np.e ** 2, 1 / np.e, INF], np.float32), {"rtol": 1e-6}),
    ("exp_int64", "exp", a([3, 20], np.int64), a([np.e ** 3, np.e ** 20], np.float32),
     {"rtol": 1e-6}),
    ("exp_complex", "exp", a([1j * np.pi], np.complex64), a([-1 + 0j], np.complex64),
     {"atol": 1e-6}),
    ("exp_size0", "exp", np.zeros((0,), np.float64), np.zeros((0,), np.float64), {}),
]


@pytest.mark.parametrize(("op", "x", "expected", "tol"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_values(run_op, op, x, expected, tol):
    assert_array(run_op(op, x), expected, **tol)


def test_relu_negative_zero_becomes_positive_zero(run_op):
    out = run_op("relu", a([-0.0, 0.0], np.float32))
    assert not np.signbit(out).any()


def test_relu6_keeps_negative_zero_and_nan_like_paddle(run_op):
    # paddle 2.6.2: F.relu6([-0.0, nan, -1, 7, inf, -inf]) = [-0.0, nan, 0, 6, 6, 0], the first
    # with its sign bit set (Eigen's cwiseMax keeps its first operand on a tie)
    out = run_op("relu6", a([-0.0, NAN, -1.0, 7.0, INF, -INF] * 3, np.float32))
    np.testing.assert_array_equal(out, a([0.0, NAN, 0.0, 6.0, 6.0, 0.0] * 3, np.float32))
    assert np.signbit(out).tolist() == [True, False, False, False, False, False] * 3


def test_tanh_keeps_negative_zero(run_op):
    assert np.signbit(run_op("tanh", a([-0.0], np.float64))[0])
