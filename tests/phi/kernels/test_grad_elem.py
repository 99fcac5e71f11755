"""Hand-worked checks of the elementwise, reduction and linear algebra grad kernels (the
Paddle-made grad cases in tests/fixtures/grad_ops are the main evidence): gradients summed back
to broadcast inputs, the legacy axis, 0-d output gradients, Paddle's masks."""

from __future__ import annotations

import numpy as np

from fluid_compat.imperative import run_op
from phi.kernels.funcs.elementwise import reduce_to


def test_reduce_to_sums_the_broadcast_dims():
    g = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    # trailing alignment (axis -1): y of shape [4] sums over dims 0 and 1
    np.testing.assert_array_equal(reduce_to(np, g, (4,)), [60, 66, 72, 78])
    # legacy axis 1: y of shape [3] sits at dim 1, dims 0 and 2 are summed
    np.testing.assert_array_equal(reduce_to(np, g, (3,), axis=1), [60, 92, 124])
    # a size-1 dim of the input is summed too; 0-d sums everything
    np.testing.assert_array_equal(reduce_to(np, g, (3, 1)), [[60], [92], [124]])
    assert reduce_to(np, g, ()) == 276


def test_elementwise_add_grad_with_legacy_axis_and_0d_dout():
    x = np.ones((2, 3, 4), np.float32)
    y = np.ones((3,), np.float32)
    dout = np.full((2, 3, 4), 0.5, np.float32)
    out = run_op("elementwise_add_grad", {"X": x, "Y": y, "Out@GRAD": dout}, {"axis": 1})
    np.testing.assert_array_equal(out["X@GRAD"][0], dout)
    np.testing.assert_array_equal(out["Y@GRAD"][0], [4.0, 4.0, 4.0])
    # 0-d operands: a 0-d Out@GRAD picks the kernel dtype like any other
    s = np.array(2.0, np.float64)
    out = run_op("elementwise_mul_grad", {"X": s, "Y": np.array(3.0), "Out@GRAD": s},
                 {"axis": -1})
    assert out["X@GRAD"][0].shape == () and out["X@GRAD"][0] == 6.0
    assert out["Y@GRAD"][0] == 4.0


def test_max_grad_gives_every_tie_the_gradient_and_amax_grad_shares_it():
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    dout = np.array([6.0, 3.0])
    attrs = {"dim": [1], "keep_dim": False, "reduce_all": False}
    out = np.array([3.0, 2.0])
    got = run_op("reduce_max_grad", {"X": x, "Out": out, "Out@GRAD": dout}, attrs)["X@GRAD"][0]
    np.testing.assert_array_equal(got, [[0, 6, 6], [3, 3, 3]])
    got = run_op("reduce_amax_grad", {"X": x, "Out": out, "Out@GRAD": dout}, attrs)["X@GRAD"][0]
    np.testing.assert_array_equal(got, [[0, 3, 3], [1, 1, 1]])


def test_triangular_solve_grad_keeps_paddles_shifted_unit_mask():
    # Paddle masks dX with tril / triu at diagonal offset `unitriangular` (1): a unit lower
    # triangle keeps its first superdiagonal, the diagonal included
    a = np.eye(3)
    y = np.ones((3, 1))
    attrs = {"upper": False, "transpose": False, "unitriangular": True}
    out = y.copy()  # A = I: Out = Y
    got = run_op("triangular_solve_grad", {"X": a, "Y": y, "Out": out, "Out@GRAD": y},
                 attrs)["X@GRAD"][0]
    np.testing.assert_array_equal(got, np.tril(-np.ones((3, 3)), 1))
