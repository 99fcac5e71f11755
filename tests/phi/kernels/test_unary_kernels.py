"""Kernels and InferMeta of the element-wise unary ops (trigonometric / hyperbolic, log and exp
variants, parameterised activations, special functions, complex views) on hand-worked values:
closed forms of the special functions, the NaN / inf / -0.0 rules of Paddle's functors, and
compile-time dims of the complex views.  Paddle's own outputs are the committed
tests/fixtures/single_ops cases (tools/fixtures/cases/unary.py), run by
tests/fluid_compat/operators/test_corpus_cases.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from phi.common import DataType
from phi.common.layout import DataLayout
from phi.core.errors import InvalidArgument
from phi.core.tensor import MetaTensor
import phi.infermeta as im

NAN, INF = math.nan, math.inf
EULER_GAMMA = 0.5772156649015329


def f64(*values):
    return np.array(values, np.float64)


@pytest.mark.parametrize("op, args, x, want", [
    ("digamma", (), f64(1.0, 0.5, -0.5, 0.0, -3.0), f64(-EULER_GAMMA,
                                                        -EULER_GAMMA - 2 * math.log(2),
                                                        2 - EULER_GAMMA - 2 * math.log(2),
                                                        NAN, NAN)),
    ("lgamma", (), f64(0.5, 3.0, -0.5, 0.0, -2.0, -INF),
     f64(0.5 * math.log(math.pi), math.log(2), math.log(2 * math.sqrt(math.pi)), INF, INF, INF)),
    ("erfinv", (), f64(math.erf(0.5), -math.erf(2.0), 1.0, -1.0, 2.0, NAN),
     f64(0.5, -2.0, INF, -INF, INF, NAN)),
    ("i0", (), f64(0.0, 1.0), f64(1.0, 1.2660658777520082)),
    ("i0e", (), f64(1.0, 10.0), f64(1.2660658777520082 / math.e, 0.1278333371634286)),
    ("i1", (), f64(-1.0, -0.0), f64(-0.5651591039924851, 0.0)),
    ("i1e", (), f64(1.0,), f64(0.5651591039924851 / math.e,)),
    ("polygamma", (1,), f64(1.0, 0.5), f64(math.pi**2 / 6, math.pi**2 / 2)),
    ("polygamma", (0,), f64(1.0, NAN), f64(-INF, -INF)),  # 2.6.2's kernel: zeta(1, x) = inf
    ("softshrink", (1.0,), f64(INF, -INF, 1.5, -0.5), f64(NAN, NAN, 0.5, 0.0)),
    ("thresholded_relu", (0.5,), f64(-INF, -3.0, 2.0), f64(NAN, -0.0, 2.0)),
    ("selu", (2.0, 0.5), f64(-0.0, -INF, 1.5), f64(0.0, -1.0, 3.0)),
    ("celu", (0.5,), f64(-0.0, -INF), f64(-0.0, -0.5)),
    ("logit", (0.0,), f64(0.0, 1.0, 0.5, -0.1, INF), f64(-INF, INF, 0.0, NAN, NAN)),
    ("logit", (0.25,), f64(0.0, 0.9, NAN), f64(-math.log(3), math.log(3), NAN)),
    ("softplus", (2.0, 5.0), f64(2.6, -INF, 0.0), f64(2.6, 0.0, math.log(2) / 2)),
    ("hardtanh", (-1.0, 2.0), f64(NAN, -0.0, INF), f64(NAN, -0.0, 2.0)),
    ("angle", (), f64(-1.0, -0.0, NAN), f64(math.pi, 0.0, 0.0)),
    ("logsigmoid", (), f64(-INF, 800.0, 0.0), f64(NAN, 0.0, -math.log(2))),
])
def test_values(run_op, op, args, x, want):
    got = np.asarray(run_op(op, x, *args))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(np.signbit(got[want == 0]), np.signbit(want[want == 0]))


def test_int_inputs(run_op):
    got = np.asarray(run_op("log2", np.array([8, 0, -1], np.int32)))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.array([3.0, -INF, NAN], np.float32))
    sq = np.asarray(run_op("square", np.array([46341], np.int32)))
    assert sq.tolist() == [46341 * 46341 - 2**32]  # wraps as int32 does


def test_complex_views_keep_inf_and_signed_zero_parts(run_op):
    z = np.asarray(run_op("complex", np.array([INF, -0.0], np.float32),
                          np.array([-0.0], np.float32)))
    assert z.dtype == np.complex64
    assert np.isinf(z.real[0]) and np.signbit(z.imag).all() and np.signbit(z.real[1])
    pairs = np.asarray(run_op("as_real", z))
    assert pairs.shape == (2, 2) and pairs.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(run_op("as_complex", pairs)), z)


def meta(dims, dtype):
    return MetaTensor(tuple(dims), dtype, DataLayout.NCHW)


def test_infer_meta_compile_time_dims():
    out = MetaTensor()
    im.as_complex_infer_meta(meta((-1, 3, -1), DataType.FLOAT64), out)
    assert tuple(out.dims) == (-1, 3) and out.dtype == DataType.COMPLEX128
    im.as_real_infer_meta(meta((-1,), DataType.COMPLEX64), out)
    assert tuple(out.dims) == (-1, 2) and out.dtype == DataType.FLOAT32
    im.complex_infer_meta(meta((2, 1), DataType.FLOAT32), meta((-1,), DataType.FLOAT32), out)
    assert tuple(out.dims) == (2, -1) and out.dtype == DataType.COMPLEX64
    im.real_and_imag_infer_meta(meta((0, 4), DataType.COMPLEX128), out)
    assert tuple(out.dims) == (0, 4) and out.dtype == DataType.FLOAT64
    with pytest.raises(InvalidArgument, match="last dimension of Input.X. must be 2"):
        im.as_complex_infer_meta(meta((2, 3), DataType.FLOAT32), out)
