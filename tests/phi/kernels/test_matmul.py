"""matmul: transposes, 1-D promotion, batch broadcasting, integer wrap, K = 0 and errors."""

from __future__ import annotations

import numpy as np
import pytest

from phi.core.errors import InvalidArgument
from tests.phi.kernels.conftest import assert_array

A = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
B = np.array([[5.0, 6.0], [7.0, 8.0]], np.float32)

# (id, x, y, transpose_x, transpose_y, expected)
CASES = [
    ("2d", A, B, False, False, np.array([[19, 22], [43, 50]], np.float32)),
    ("trans_x", A, B, True, False, np.array([[26, 30], [38, 44]], np.float32)),
    ("trans_y", A, B, False, True, np.array([[17, 23], [39, 53]], np.float32)),
    ("trans_both", A, B, True, True, np.array([[23, 31], [34, 46]], np.float32)),
    # 1-D operands: vector . vector is 0-D; their transpose flags are ignored
    ("vec_vec", np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0]), True, True,
     np.array(32.0)),
    ("vec_mat", np.array([1.0, 1.0], np.float32), A, False, False,
     np.array([4.0, 6.0], np.float32)),
    ("mat_vec", A, np.array([1.0, 1.0], np.float32), False, False,
     np.array([3.0, 7.0], np.float32)),
    ("int32_wraps", np.array([[65536, 1]], np.int32), np.array([[65536], [0]], np.int32), False,
     False, np.array([[0]], np.int32)),
    ("int64", np.array([[2, 3]], np.int64), np.array([[4], [5]], np.int64), False, False,
     np.array([[23]], np.int64)),
    # K = 0: a sum of nothing
    ("k0", np.zeros((2, 0), np.float64), np.zeros((0, 3), np.float64), False, False,
     np.zeros((2, 3), np.float64)),
    ("m0", np.zeros((0, 2), np.float32), B, False, False, np.zeros((0, 2), np.float32)),
    ("complex", np.array([[1j]], np.complex64), np.array([[1j]], np.complex64), False, False,
     np.array([[-1 + 0j]], np.complex64)),
]


@pytest.mark.parametrize(("x", "y", "tx", "ty", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_values(run_op, x, y, tx, ty, expected):
    assert_array(run_op("matmul", x, y, tx, ty), expected, rtol=1e-6)


@pytest.mark.parametrize(
    ("xs", "ys", "tx", "ty", "out"),
    [
        ((2, 1, 3, 4), (3, 4, 5), False, False, (2, 3, 3, 5)),
        ((5, 4, 3), (4, 2), True, False, (5, 3, 2)),
        ((4,), (2, 4, 3), False, False, (2, 3)),
        ((2, 3, 4), (4,), False, False, (2, 3)),
        ((1, 2, 3), (6, 2, 3), False, True, (6, 2, 2)),
    ],
)
def test_batch_shapes_match_numpy(run_op, xs, ys, tx, ty, out):
    rng = np.random.default_rng(1)
    x = rng.normal(size=xs)
    y = rng.normal(size=ys)
    got = run_op("matmul", x, y, tx, ty)
    ref = np.matmul(np.swapaxes(x, -1, -2) if tx else x, np.swapaxes(y, -1, -2) if ty else y)
    assert got.shape == out
    assert_array(got, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("xs", "ys", "ty"), [
    ((2, 3, 4), (4, 5), False), ((2, 1, 3, 4), (5, 4), True), ((2, 0, 4), (4, 3), False),
    ((2, 3, 0), (0, 3), False), ((3, 4, 2), (2, 0), False),
    # from 4096 elements of x: one GEMM over all rows
    ((2, 64, 40), (40, 7), False), ((2, 1, 64, 40), (7, 40), True), ((3, 40, 40), (40, 0), False)])
def test_a_batch_against_one_matrix_is_each_batchs_product(run_op, xs, ys, ty):
    # x [..., M, K] against a 2-D y runs as one GEMM over all rows when x is not tiny (Paddle
    # folds them too):
    # every batch's rows are still that batch's own product, empty sizes included
    rng = np.random.default_rng(2)
    x = rng.integers(-4, 5, size=xs).astype(np.float32)
    y = rng.integers(-4, 5, size=ys).astype(np.float32)
    got = run_op("matmul", x, y, False, ty)
    yy = y.T if ty else y
    assert got.shape == xs[:-1] + yy.shape[-1:]
    for index in np.ndindex(*xs[:-2]):
        rows = x[index]  # small integers: every sum exact, whatever the order
        expected = np.array([[sum(float(a) * float(b) for a, b in zip(r, col, strict=True))
                              for col in yy.T] for r in rows], np.float32).reshape(
                                  rows.shape[0], yy.shape[1])
        assert np.array_equal(got[index], expected)


@pytest.mark.parametrize(
    ("xs", "ys", "match"),
    [
        ((2, 3), (4, 5), "contracted dimension"),
        ((2, 2, 3), (3, 3, 4), "cannot be broadcast"),
        ((), (3,), r"Input\(x\) dims size must be greater than 0"),
        ((3,), (), r"Input\(y\) dims size must be greater than 0"),
    ],
)
def test_errors(run_op, xs, ys, match):
    with pytest.raises(InvalidArgument, match=match):
        run_op("matmul", np.ones(xs), np.ones(ys))
