"""expand, expand_as, tile, shape, numel, one_hot_raw: -1 sizes, new leading dims, the checks
Paddle makes (zero sizes, non-singleton mismatches, out-of-range one-hot indices)."""

from __future__ import annotations

import numpy as np
import pytest

from phi.backends import get_context
from phi.common import CPUPlace, DataType, Scalar
from phi.core.errors import PhiError
from phi.kernels import one_hot as broadcast
from tests.phi.kernels.conftest import assert_array

X = np.arange(3, dtype=np.float32).reshape(1, 3)


def test_expand(run_op):
    assert_array(run_op("expand", X, [2, 4, -1]), np.broadcast_to(X, (2, 4, 3)))
    for bad, match in (([4, 2], "non-singleton"), ([0, 3], "zero"), ([-1, 1, 3], "positive"),
                       ([3], "greater than or equal")):
        with pytest.raises(PhiError, match=match):
            run_op("expand", X, bad)


def test_expand_as_takes_y_dims_when_given(run_op):
    y = np.zeros((2, 3), np.int64)
    assert_array(run_op("expand_as", X, y, []), np.broadcast_to(X, (2, 3)))
    assert_array(run_op("expand_as", X, None, [4, 3]), np.broadcast_to(X, (4, 3)))


def test_tile(run_op):
    assert_array(run_op("tile", X, [2, 1, 2]), np.tile(X, (2, 1, 2)))
    assert_array(run_op("tile", np.ones((2, 2, 2), np.int32), [3]),
                 np.ones((2, 2, 6), np.int32))
    with pytest.raises(PhiError, match="greater than 0"):
        run_op("tile", X, [0, 1])


def test_shape_and_numel(run_op):
    assert_array(run_op("shape", np.zeros((2, 0, 5), np.float64)),
                 np.array([2, 0, 5], np.int32))
    assert_array(run_op("shape", np.float32(1.0)), np.zeros((0,), np.int32))
    assert_array(run_op("numel", np.zeros((2, 3), np.bool_)), np.array(6, np.int64))


def test_one_hot_raw():
    ctx = get_context(CPUPlace())
    x = np.array([[0], [2]], np.int64)
    assert_array(broadcast.one_hot_raw(ctx, x, Scalar(3), DataType.FLOAT64, False),
                 np.array([[[1, 0, 0]], [[0, 0, 1]]], np.float64))
    out = broadcast.one_hot_raw(ctx, np.array([3, -1], np.int32), Scalar(3), DataType.INT32,
                                True)
    assert_array(out, np.zeros((2, 3), np.int32))
    with pytest.raises(PhiError, match="less than"):
        broadcast.one_hot_raw(ctx, np.array([3], np.int32), Scalar(3), DataType.FLOAT32, False)
