"""reshape, transpose, concat, split: values, 0/-1 rules, size-0 and 0-D, errors, no aliasing."""

from __future__ import annotations

import numpy as np
import pytest

from phi.core.errors import InvalidArgument
from tests.phi.kernels.conftest import assert_array

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize(
    ("x", "shape", "out"),
    [
        (X, [6, 4], (6, 4)),
        (X, [0, -1], (2, 12)),  # 0 copies x's dim at that index
        (X, [-1, 0, 2], (4, 3, 2)),
        (X, [24], (24,)),
        (np.array([5], np.int64), [], ()),  # to 0-D
        (np.array(5, np.int64), [1, 1], (1, 1)),
        (np.zeros((0, 3), np.float32), [-1, 3], (0, 3)),  # size 0 with an inferred dim
        (np.zeros((0, 3), np.float32), [3, -1], (3, 0)),
    ],
)
def test_reshape(run_op, x, shape, out):
    assert_array(run_op("reshape", x, shape), x.reshape(out))


@pytest.mark.parametrize(
    ("shape", "match"),
    [
        ([-1, -1], "Only one dimension value of 'shape' in ReshapeOp can be -1"),
        ([5, 5], "must be equal to the capacity of 'shape'"),
        ([-1, 5], "must be divisible by known capacity"),
        ([2, 3, 4, 0], r"The index of 0 in `shape` must be less than"),
        ([-2, 12], "must not be negative"),
    ],
)
def test_reshape_errors(run_op, shape, match):
    with pytest.raises(InvalidArgument, match=match):
        run_op("reshape", X, shape)


def test_reshape_and_transpose_do_not_alias(run_op):
    x = X.copy()
    for out in (run_op("reshape", x, [-1]), run_op("transpose", x, [2, 1, 0])):
        out[...] = -1
    assert_array(x, X)


@pytest.mark.parametrize(
    ("x", "perm"),
    [
        (X, [2, 0, 1]),
        (X, [-1, 0, -2]),
        (np.array(3.0), []),
        (np.zeros((0, 2), bool), [1, 0]),
        (np.arange(6, dtype=np.int8).reshape(2, 3), [1, 0]),
    ],
)
def test_transpose(run_op, x, perm):
    assert_array(run_op("transpose", x, perm), np.transpose(x, [p % max(x.ndim, 1)
                                                                 for p in perm]))


@pytest.mark.parametrize(
    ("perm", "match"),
    [([0, 1], "should be equal to the perm's size"), ([0, 1, 3], "should be in the range"),
     ([0, 1, 1], "should be unique"), ([0, -3, 0], "should be unique")],
)
def test_transpose_errors(run_op, perm, match):
    with pytest.raises(InvalidArgument, match=match):
        run_op("transpose", X, perm)


@pytest.mark.parametrize(
    ("xs", "axis", "expected"),
    [
        ([X[:, :1], X[:, 1:]], 1, X),
        ([X[..., :3], X[..., 3:]], -1, X),
        ([np.zeros((0, 3, 4), np.float32), X], 0, X),  # a size-0 input contributes nothing
        ([np.array([True]), np.array([False, True])], 0, np.array([True, False, True])),
        ([np.array([1, 2], np.int16)], 0, np.array([1, 2], np.int16)),
    ],
)
def test_concat(run_op, xs, axis, expected):
    assert_array(run_op("concat", xs, axis), expected)


@pytest.mark.parametrize(
    ("xs", "axis", "match"),
    [
        ([X, X[:, :2]], 0, "The 1-th dimension of input"),
        ([X, X[0]], 0, "The shape of input"),
        ([X, X], 3, r"in range of \[-3, 3\), but got 3"),
        ([np.array(1.0), np.array(2.0)], 0, "0-D"),
    ],
)
def test_concat_errors(run_op, xs, axis, match):
    with pytest.raises(InvalidArgument, match=match):
        run_op("concat", xs, axis)


@pytest.mark.parametrize(
    ("x", "sections", "axis", "sizes"),
    [
        (X, [1, 2], 1, [1, 2]),
        (X, [1, -1], -1, [1, 3]),  # one -1 takes the rest
        (X, [0, 2], 0, [0, 2]),  # a size-0 piece
        (np.zeros((2, 0), np.float32), [1, 2], 1, [0, 0]),  # split dim 0: Paddle skips checks
        (np.arange(5, dtype=np.int64), [5], 0, [5]),
    ],
)
def test_split(run_op, x, sections, axis, sizes):
    outs = run_op("split", x, sections, axis)
    assert [o.shape[axis] for o in outs] == sizes
    if x.shape[axis]:
        assert_array(np.concatenate(outs, axis=axis), x)


def test_split_outputs_are_copies(run_op):
    x = X.copy()
    for out in run_op("split", x, [1, 1], 0):
        out[...] = -1
    assert_array(x, X)


@pytest.mark.parametrize(
    ("sections", "axis", "match"),
    [
        ([1, 1], 1, "must be equal to the input's size"),
        ([-1, -1], 1, "Only one dimension value"),
        ([3, -1], 1, "must be less than the input's size"),
        ([1, 2], 3, r"in range of \[-3, 3\), but got 3"),
        ([1, 2], 1.0, "must be int"),
        ([4, -2], 1, "must be >= 0"),
    ],
)
def test_split_errors(run_op, sections, axis, match):
    with pytest.raises(InvalidArgument, match=match):
        run_op("split", X, sections, axis)
