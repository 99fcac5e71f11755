"""Kernels and InferMeta of the linear algebra, fft and signal ops against their definitions
(A v = w v, P L U = A, Q R = A, ...) and hand-worked values; Paddle's own outputs are the
committed tests/fixtures/single_ops cases (tools/fixtures/cases/linalg.py)."""

from __future__ import annotations

import numpy as np
import pytest

from phi.backends import get_context
from phi.common import CPUPlace, DataType
from phi.common.layout import DataLayout
from phi.core.errors import InvalidArgument, Unimplemented
from phi.core.tensor import MetaTensor
import phi.infermeta as im
from phi.kernels.cholesky import cholesky
from phi.kernels.eig import eig
from phi.kernels.eigh import eigh
from phi.kernels.inverse import inverse
from phi.kernels.lu import lu as k_lu
from phi.kernels.lu_unpack import lu_unpack
from phi.kernels.matrix_power import matrix_power
from phi.kernels.matrix_rank import matrix_rank, matrix_rank_tol
from phi.kernels.qr import qr
from phi.kernels.slogdet import slogdet
from phi.kernels.solve import solve
from phi.kernels.triangular_solve import triangular_solve

CTX = get_context(CPUPlace())
F32, F64 = DataType.FLOAT32, DataType.FLOAT64
R = np.random.RandomState(0)


def meta(dims, dtype=F32):
    return MetaTensor(tuple(dims), dtype, DataLayout.NCHW)


def out():
    return MetaTensor((), F32, DataLayout.NCHW)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_eig_vectors_satisfy_definition(dtype):
    a = R.uniform(-1, 1, (2, 4, 4)).astype(dtype)
    w, v = eig(CTX, a)
    assert w.dtype == (np.complex64 if dtype == np.float32 else np.complex128)
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=1e-4)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, rtol=1e-4)


def test_eigh_uplo_reads_one_triangle():
    a = np.array([[2.0, 100.0], [1.0, 2.0]])
    w_l, _ = eigh(CTX, a, "L")
    w_u, _ = eigh(CTX, a, "U")
    np.testing.assert_allclose(w_l, [1.0, 3.0])
    np.testing.assert_allclose(w_u, [-98.0, 102.0])


def test_lu_and_unpack_reconstruct():
    a = R.uniform(-1, 1, (2, 3, 5))
    lu, piv, info = k_lu(CTX, a, True)
    assert piv.dtype == np.int32 and piv.shape == (2, 3) and info.tolist() == [0, 0]
    p, low, up = lu_unpack(CTX, lu, piv, True, True)
    np.testing.assert_allclose(p @ low @ up, a, atol=1e-12)
    with pytest.raises(Unimplemented):
        k_lu(CTX, a, False)


def test_lu_info_first_zero_pivot():
    a = np.array([[0.0, 1.0], [0.0, 2.0]])
    _, piv, info = k_lu(CTX, a, True)
    assert info.tolist() == [1] and piv.tolist() == [1, 2]


def test_singular_inputs_raise_typed_errors():
    ones = np.ones((3, 3))
    for fn in (lambda: inverse(CTX, ones), lambda: solve(CTX, ones, np.ones((3, 1))),
               lambda: cholesky(CTX, -np.eye(3), False),
               lambda: matrix_power(CTX, ones, -1)):
        with pytest.raises(InvalidArgument):
            fn()


def test_slogdet_layout_and_singular():
    a = np.stack([np.diag([-2.0, 3.0]), np.zeros((2, 2))])
    got = slogdet(CTX, a)
    np.testing.assert_allclose(got, [[-1.0, 0.0], [np.log(6.0), -np.inf]])


def test_triangular_solve_ignores_other_triangle_and_unit():
    a = np.array([[2.0, 9.0], [4.0, 8.0]])
    b = np.array([[2.0], [8.0]])
    # lower, unit diagonal: [[1, 0], [4, 1]] x = b -> x = [2, 0]
    np.testing.assert_allclose(triangular_solve(CTX, a, b, False, False, True), [[2.0], [0.0]])
    # upper transposed: [[2, 0], [9, 8]] x = b -> x = [1, -1/8]
    np.testing.assert_allclose(triangular_solve(CTX, a, b, True, True, False),
                               [[1.0], [-0.125]])


def test_qr_modes_and_matrix_rank():
    a = R.uniform(-1, 1, (5, 3)).astype(np.float32)
    q, r = qr(CTX, a, "complete")
    assert q.shape == (5, 5) and r.shape == (5, 3)
    np.testing.assert_allclose(q @ r, a, atol=1e-5)
    q, r = qr(CTX, a, "r")
    assert q.shape == (0,) and r.shape == (3, 3)
    x = np.stack([np.diag([1.0, 1e-3, 0.0]), np.eye(3)]).astype(np.float32)
    assert matrix_rank(CTX, x, 0.0, True, False).tolist() == [2, 3]
    assert matrix_rank(CTX, x, 0.01, False, False).tolist() == [1, 3]
    assert matrix_rank_tol(CTX, x, np.array([0.5, 2.0], np.float32), False, True).tolist() \
        == [1, 0]


def test_compile_time_dims():
    o = out()
    im.solve_infer_meta(meta((-1, 3, 3)), meta((3,)), o)
    assert o.dims == (-1, 3)
    q, r = out(), out()
    im.qr_infer_meta(meta((-1, 4, 2)), "reduced", q, r)
    assert q.dims == (-1, 4, 2) and r.dims == (-1, 2, 2)
    im.slogdet_infer_meta(meta((-1, 3, 3)), o)
    assert o.dims == (2, -1)
    im.multi_dot_infer_meta([meta((3,)), meta((3, -1)), meta((-1, 2))], o)
    assert o.dims == (2,)
    with pytest.raises(InvalidArgument):
        im.inverse_infer_meta(meta((2, 3)), o)
    with pytest.raises(InvalidArgument):
        im.qr_infer_meta(meta((2, 3)), "economic", q, r)


def _complex_cases():
    import tools.fixtures.cases.linalg as cases

    from tests.fluid_compat.operators import corpus_cases as tc

    names = set(tc.OK_CASES) if hasattr(tc, "OK_CASES") else set()
    return [c["name"] for c in cases.CASES if c["name"] in names and not c.get("expected_error")]


@pytest.mark.parametrize("name", _complex_cases())
def test_complex_outputs_match_paddle_imaginary_parts_too(name):
    """test_corpus_cases compares complex outputs through float64 (real parts): compare both."""
    from tests.fluid_compat.operators import corpus_cases as tc

    case, arrays = tc.load_case(name)
    result, _ = tc.run_op_with_operator(case["op_type"], tc.case_inputs(case, arrays),
                                        tc.case_attrs(case),
                                        extra_outputs=case["op_desc"]["outputs"])
    for slot, items in tc.case_outputs(case, arrays).items():
        for got, (ref, tol) in zip(result[slot], items, strict=False):
            if not np.iscomplexobj(ref) or (name == "eig_f32" and slot == "Eigenvectors"):
                continue
            np.testing.assert_allclose(got, ref, rtol=tol.get("rtol", 1e-5),
                                       atol=tol.get("atol", 1e-6), err_msg=f"{name}.{slot}")


def test_fft_and_signal_definitions():
    from phi.kernels.fft import fft_c2r, fft_r2c
    from phi.kernels.frame import frame
    from phi.kernels.overlap_add import overlap_add

    x = R.uniform(-1, 1, (3, 8))
    np.testing.assert_allclose(fft_r2c(CTX, x, [1], "backward", True, True),
                               np.fft.rfft(x, axis=1))
    # hfft: forward-sign c2r of a Hermitian half spectrum, unscaled with "backward"
    h = np.fft.rfft(x[0]).astype(np.complex128)
    np.testing.assert_allclose(fft_c2r(CTX, h, [0], "backward", True, 8), np.fft.hfft(h, 8))
    fr = frame(CTX, np.arange(10), 4, 3, -1)
    assert fr.shape == (4, 3) and fr[:, 2].tolist() == [6, 7, 8, 9]
    np.testing.assert_array_equal(overlap_add(CTX, np.ones((4, 3)), 2, -1),
                                  [1, 1, 2, 2, 2, 2, 1, 1])
