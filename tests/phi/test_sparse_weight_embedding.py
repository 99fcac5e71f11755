"""lookup_table_v2's gradient when W is a SelectedRows table (Paddle 2.6.2's
sparse_weight_embedding_grad / _sparse_grad kernels): hand-worked values."""

from __future__ import annotations

import numpy as np
import pytest

from phi.backends import get_context
from phi.common.place import CPUPlace
from phi.core.errors import InvalidArgument
from phi.core.selected_rows import SelectedRows
from phi.kernels.selected_rows.sparse_weight_embedding import (
    sparse_weight_embedding_grad,
    sparse_weight_embedding_sparse_grad,
)

CTX = get_context(CPUPlace())
# a table of height 4 of which rows 0 and 2 are held (the ids index the full height)
W = SelectedRows([0, 2], 4, np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
IDS = np.array([[1], [3], [1], [0]], np.int64)
DOUT = np.array([[1.0, 10.0], [2.0, 20.0], [3.0, 30.0], [4.0, 40.0]], np.float32)


def test_dense_gradient_sums_repeated_ids_and_skips_padding():
    grad = sparse_weight_embedding_grad(CTX, IDS, W, DOUT, 0)
    # row 1: ids 0 and 2 (1+3, 10+30); row 3: id 1; row 0 is padding_idx: zero
    np.testing.assert_array_equal(grad, [[0, 0], [4, 40], [0, 0], [2, 20]])
    assert grad.dtype == np.float32
    no_padding = sparse_weight_embedding_grad(CTX, IDS.astype(np.int32), W, DOUT, -1)
    np.testing.assert_array_equal(no_padding[0], [4, 40])


def test_sparse_gradient_keeps_ids_as_rows():
    grad = sparse_weight_embedding_sparse_grad(CTX, IDS, W, DOUT, 0)
    assert list(grad.rows) == [1, 3, 1, 0] and grad.height == 4
    np.testing.assert_array_equal(grad.data, DOUT)


def test_ids_outside_the_table_and_float_ids_are_refused():
    with pytest.raises(InvalidArgument, match="expected >= 0 and < 4, but got 4"):
        sparse_weight_embedding_grad(CTX, np.array([4]), W, DOUT[:1], -1)
    with pytest.raises(InvalidArgument, match="Ids must be int32 or int64"):
        sparse_weight_embedding_sparse_grad(CTX, IDS.astype(np.float32), W, DOUT, -1)
