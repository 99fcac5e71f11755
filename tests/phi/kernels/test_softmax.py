"""softmax: Paddle's clip of shifted logits at -64, -inf rows, axes, 0-D and size-0."""

from __future__ import annotations

import numpy as np
import pytest

from phi.core.errors import InvalidArgument
from tests.phi.kernels.conftest import assert_array

E64 = np.exp(-64.0)


def _ref(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [-1, 0, 1, -3])
def test_matches_reference_on_moderate_values(run_op, dtype, axis):
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype(dtype)
    out = run_op("softmax", x, axis)
    tol = 1e-6 if dtype == np.float32 else 1e-14
    assert_array(out, _ref(x.astype(np.float64), axis).astype(dtype), rtol=tol, atol=tol)
    np.testing.assert_allclose(out.sum(axis=axis), 1.0, rtol=tol)




@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ([0.0, np.log(3.0)], [0.25, 0.75]),
        # -inf and anything more than 64 below the max are clipped to exp(-64), not 0
        ([0.0, -np.inf], [1 / (1 + E64), E64 / (1 + E64)]),
        ([0.0, -100.0], [1 / (1 + E64), E64 / (1 + E64)]),
        # a row of -inf only: -inf - -inf is NaN, which the clip lets through
        ([-np.inf, -np.inf], [np.nan, np.nan]),
        ([np.nan, 0.0], [np.nan, np.nan]),
    ],
)
def test_rows(run_op, row, expected):
    out = run_op("softmax", np.array([row], np.float64), -1)
    assert_array(out, np.array([expected], np.float64), rtol=1e-15)


def test_clip_in_float32_keeps_tiny_probability(run_op):
    out = run_op("softmax", np.array([0.0, -np.inf, -1000.0], np.float32), 0)
    assert out[1] == out[2] > 0
    np.testing.assert_allclose(out[1], np.float32(E64), rtol=1e-6)


def test_0d_is_one(run_op):
    assert_array(run_op("softmax", np.array(-5.0, np.float32), -1), np.array(1.0, np.float32))
    assert_array(run_op("softmax", np.array(np.nan, np.float64), 0), np.array(1.0, np.float64))


def test_size0(run_op):
    assert_array(run_op("softmax", np.zeros((3, 0), np.float32), -1), np.zeros((3, 0), np.float32))


def test_axis_out_of_range(run_op):
    with pytest.raises(InvalidArgument, match=r"in range of \[-2, 2\), but got 2"):
        run_op("softmax", np.zeros((2, 3), np.float32), 2)
