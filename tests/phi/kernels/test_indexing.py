"""gather, gather_nd, index_select, embedding: 0-D and [N, 1] indices, negative gather_nd
indices, padding rows, and out-of-range indices refused."""

from __future__ import annotations

import numpy as np
import pytest

from phi.core.errors import PhiError
from tests.phi.kernels.conftest import assert_array

X = np.arange(12, dtype=np.float32).reshape(3, 4)


def test_gather(run_op):
    assert_array(run_op("gather", X, np.array([2, 0], np.int32)), X[[2, 0]])
    assert_array(run_op("gather", X, np.array([[3], [1]], np.int64), 1), X[:, [3, 1]])
    assert_array(run_op("gather", X, np.array(1, np.int64), 1), X[:, 1])  # 0-D index
    assert_array(run_op("gather", X, np.zeros((0,), np.int64)), np.zeros((0, 4), np.float32))
    with pytest.raises(PhiError, match="index"):
        run_op("gather", X, np.array([3], np.int64))
    with pytest.raises(PhiError, match="index"):
        run_op("gather", X, np.array([-1], np.int64))


def test_gather_nd(run_op):
    assert_array(run_op("gather_nd", X, np.array([[0, 1], [-1, -1]], np.int64)),
                 np.array([1.0, 11.0], np.float32))
    assert_array(run_op("gather_nd", X, np.array([[2], [0]], np.int32)), X[[2, 0]])
    with pytest.raises(PhiError, match="gather_nd"):
        run_op("gather_nd", X, np.array([[3, 0]], np.int64))


def test_index_select(run_op):
    assert_array(run_op("index_select", X, np.array([3, 3, 0], np.int64), 1), X[:, [3, 3, 0]])
    with pytest.raises(PhiError, match="index_select"):
        run_op("index_select", X, np.array([-1], np.int64), 1)


def test_embedding_padding_and_range(run_op):
    ids = np.array([[0, 2], [1, 0]], np.int64)
    out = run_op("embedding", ids, X, 0)
    want = X[ids]
    want[ids == 0] = 0
    assert_array(out, want)
    assert_array(run_op("embedding", ids, X), X[ids])  # padding_idx -1: none
    with pytest.raises(PhiError, match="embedding"):
        run_op("embedding", np.array([3], np.int64), X)
