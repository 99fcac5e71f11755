"""Conformance cases for matmul_v2, matmul (v1) and mul, ported from the shapes and attributes of
Paddle's test/legacy_test/test_matmul_v2_op.py, test_matmul_op.py and test_mul_op.py (1-D
operands, broadcast batch dims, trans_x / trans_y, alpha, x/y_num_col_dims; every dtype the
bridge registers). References: float64 / integer numpy matmul of the transposed operands."""

from __future__ import annotations

import numpy as np
import pytest

from fluid_compat import run_op

TOL = {"float32": dict(rtol=1e-5, atol=1e-5), "float64": dict(rtol=1e-7, atol=1e-7),
       "complex64": dict(rtol=1e-5, atol=1e-5), "complex128": dict(rtol=1e-7, atol=1e-7),
       "int32": dict(rtol=0, atol=0), "int64": dict(rtol=0, atol=0)}

# (x shape, y shape, trans_x, trans_y): test_matmul_v2_op.py's TestMatMulOp* family
MATMUL_V2 = [
    ([100], [100], False, False),
    ([100], [100, 3], False, False),
    ([100], [3, 100], False, True),
    ([2, 100], [100], False, False),
    ([100, 2], [100], True, False),
    ([3, 1, 3, 100], [100], False, False),
    ([100], [1, 3, 2, 100, 1], False, False),
    ([2, 3, 10, 5], [3, 5, 4], False, False),
    ([2, 3, 5, 10], [3, 5, 4], True, False),
    ([2, 3, 10, 5], [3, 4, 5], False, True),
    ([2, 3, 5, 10], [3, 4, 5], True, True),
    ([3, 1, 10, 5], [1, 2, 5, 4], False, False),
    ([1, 1, 1, 2], [2, 1], False, False),
    ([1, 2, 100, 1], [2, 100, 1], True, False),
    ([0, 3, 4], [4, 5], False, False),
    ([3, 0], [0, 4], False, False),
]


def _rand(shape, dtype, seed):
    r = np.random.default_rng(seed)
    if dtype.startswith("int"):
        return r.integers(-5, 5, shape).astype(dtype)
    x = r.uniform(-1, 1, shape)
    if dtype.startswith("complex"):
        x = x + 1j * r.uniform(-1, 1, shape)
    return x.astype(dtype)


def _t(a, trans):
    return np.swapaxes(a, -1, -2) if trans and a.ndim >= 2 else a


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "complex64",
                                   "complex128"])
@pytest.mark.parametrize("case", MATMUL_V2, ids=[str(i) for i in range(len(MATMUL_V2))])
def test_matmul_v2(case, dtype):
    xs, ys, tx, ty = case
    x, y = _rand(xs, dtype, 0), _rand(ys, dtype, 1)
    out = run_op("matmul_v2", {"X": x, "Y": y}, dict(trans_x=tx, trans_y=ty))["Out"][0]
    wide = np.complex128 if dtype.startswith("complex") else (
        np.int64 if dtype.startswith("int") else np.float64)
    ref = np.matmul(_t(x.astype(wide), tx), _t(y.astype(wide), ty))
    assert out.dtype == np.dtype(dtype)
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref.astype(dtype), **TOL[dtype])


# test_matmul_op.py: transpose_X / transpose_Y / alpha, 1-D and batched operands
MATMUL_V1 = [
    ([100], [100], False, False, 1.0),
    ([4, 3], [4, 5], True, False, 1.0),
    ([3, 4], [5, 4], False, True, 2.0),
    ([2, 3, 4], [2, 4, 5], False, False, 0.5),
    ([2, 4, 3], [4, 5], True, False, 1.0),
    ([3, 4], [2, 4, 5], False, False, -1.5),
    ([4], [2, 4, 5], False, False, 1.0),
    ([2, 3, 4], [4], False, False, 1.0),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", MATMUL_V1, ids=[str(i) for i in range(len(MATMUL_V1))])
def test_matmul_v1(case, dtype):
    xs, ys, tx, ty, alpha = case
    x, y = _rand(xs, dtype, 2), _rand(ys, dtype, 3)
    out = run_op("matmul", {"X": x, "Y": y},
                 dict(transpose_X=tx, transpose_Y=ty, alpha=alpha))["Out"][0]
    ref = alpha * np.matmul(_t(x.astype(np.float64), tx), _t(y.astype(np.float64), ty))
    np.testing.assert_allclose(out, ref.reshape(out.shape), **TOL[dtype])
    if len(xs) > 1 or len(ys) > 1:
        assert out.shape == ref.shape


# test_mul_op.py: x_num_col_dims / y_num_col_dims flatten both operands to matrices
MUL = [([32, 84], [84, 100], 1, 1), ([3, 4, 2, 9], [3, 6, 1, 2, 3], 2, 2),
       ([2, 3, 4], [12, 5], 1, 1), ([2, 3, 4], [4, 5], 2, 1)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", MUL, ids=[str(i) for i in range(len(MUL))])
def test_mul(case, dtype):
    xs, ys, xc, yc = case
    x, y = _rand(xs, dtype, 4), _rand(ys, dtype, 5)
    out = run_op("mul", {"X": x, "Y": y}, dict(x_num_col_dims=xc, y_num_col_dims=yc))["Out"][0]
    x2 = x.astype(np.float64).reshape(int(np.prod(xs[:xc])), -1)
    y2 = y.astype(np.float64).reshape(int(np.prod(ys[:yc])), -1)
    ref = (x2 @ y2).reshape(*xs[:xc], *ys[yc:])
    np.testing.assert_allclose(out, ref, **TOL[dtype])
