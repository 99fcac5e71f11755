"""Kernels of the indexing / scatter / graph family against hand-worked values;
Paddle-made cases of every op run in tests/fluid_compat/operators/test_corpus_cases.py."""

from __future__ import annotations

import numpy as np
import pytest

import phi
from fluid_compat.operators.fluid_kernels.hash import xxh64_rows
from phi.core.errors import InvalidArgument, OutOfRange
from phi.kernels.set_value import set_value_bounds


def test_scatter_without_overwrite_zeroes_then_adds_every_duplicate():
    x = np.full((3, 2), 5.0, np.float32)
    upd = np.array([[1, 2], [3, 4], [10, 20]], np.float32)
    out = phi.api.scatter(x, np.array([2, 0, 2]), upd, False).numpy()
    np.testing.assert_array_equal(out, [[3, 4], [5, 5], [11, 22]])
    out = phi.api.scatter(x, np.array([2, 0, 2]), upd, True).numpy()
    np.testing.assert_array_equal(out, [[3, 4], [5, 5], [10, 20]])  # the last duplicate wins


def test_scatter_refuses_negative_and_large_indices_as_out_of_range():
    for bad in (-1, 3):
        with pytest.raises(OutOfRange):
            phi.api.scatter(np.zeros((3, 2), np.float32), np.array([bad]),
                            np.zeros((1, 2), np.float32))


@pytest.mark.parametrize("reduce, include_self, want", [
    ("add", True, [[1 + 4 + 4, 2, 3]]),
    ("mul", True, [[1 * 4 * 4, 2, 3]]),
    ("mean", True, [[(1 + 4 + 4) // 3, 2, 3]]),
    ("mean", False, [[4, 2, 3]]),
    ("amax", False, [[4, 2, 3]]),
    ("amin", True, [[1, 2, 3]]),
    ("assign", True, [[4, 2, 3]]),
])
def test_put_along_axis_reductions(reduce, include_self, want):
    x = np.array([[1, 2, 3]], np.int64)
    out = phi.api.put_along_axis(x, np.array([[0, 0]]), np.array([[4, 4]], np.int64), 1,
                                 reduce, include_self).numpy()
    np.testing.assert_array_equal(out, want)


def test_put_along_axis_integer_mean_truncates_toward_zero():
    out = phi.api.put_along_axis(np.array([[0, 0]], np.int32), np.array([[1, 1]]),
                                 np.array([[-3, -4]], np.int32), 1, "mean", True).numpy()
    np.testing.assert_array_equal(out, [[0, -2]])  # -7 / 3 in C++


def test_set_value_bounds_follow_check_and_update_slice_attrs():
    # negative step from the last element through the first (end -1 after the update)
    assert set_value_bounds((4,), [0], [-1], [-5], [-2]) == {0: (3, -1, -2)}
    assert set_value_bounds((4,), [0], [2], [100], [1]) == {0: (2, 4, 1)}
    with pytest.raises(InvalidArgument):
        set_value_bounds((4,), [0], [3], [1], [1])


def test_set_value_broadcasts_and_converts_the_scalars():
    out = phi.api.set_value(np.zeros((3, 4), np.int32), [0], [3], [2], [1], [], [], [1],
                            [2.9]).numpy()
    np.testing.assert_array_equal(out[:, 0], [2, 2, 2])  # static_cast<int>(2.9)
    np.testing.assert_array_equal(out[:, 1], [0, 0, 0])


def test_unique_consecutive_groups_runs():
    out, index, counts = phi.api.unique_consecutive(np.array([1, 1, 2, 1, 1], np.float32),
                                                    True, True)
    np.testing.assert_array_equal(out.numpy(), [1, 2, 1])
    np.testing.assert_array_equal(index.numpy(), [0, 0, 1, 2, 2])
    np.testing.assert_array_equal(counts.numpy(), [2, 1, 2])
    assert counts.numpy().dtype == np.int64


def test_masked_select_mask_must_broadcast_to_x():
    with pytest.raises(InvalidArgument):
        phi.api.masked_select(np.ones((4,), np.float32), np.ones((2, 4), bool))


def test_xxh64_known_values():
    # xxHash's published test values: XXH64("", 0) and XXH64("abc", 0)
    assert int(xxh64_rows(np.zeros((1, 0), np.uint8), 0)[0]) == 0xEF46DB3751D8E999
    abc = np.frombuffer(b"abc", np.uint8).reshape(1, 3)
    assert int(xxh64_rows(abc, 0)[0]) == 0x44BC2CF5AD770999


ROW = np.array([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7], np.int64)
COLPTR = np.array([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13], np.int64)


def test_graph_sample_neighbors_draws_distinct_neighbours_deterministically():
    nodes = np.array([0, 5, 6], np.int64)
    a = [t.numpy() for t in phi.api.graph_sample_neighbors(ROW, COLPTR, nodes, None, None, 1)]
    b = [t.numpy() for t in phi.api.graph_sample_neighbors(ROW, COLPTR, nodes, None, None, 1)]
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], [1, 1, 1])
    for node, got in zip(nodes, a[0], strict=True):
        assert got in ROW[COLPTR[node]:COLPTR[node + 1]]


def test_weighted_sample_neighbors_takes_the_sample_size():
    w = np.ones(13, np.float32)
    out, count, _ = phi.api.weighted_sample_neighbors(ROW, COLPTR, w, np.array([5, 6]), None,
                                                      1, False)
    np.testing.assert_array_equal(count.numpy(), [1, 1])
    assert out.numpy()[0] in (2, 9) and out.numpy()[1] in (3, 9)
