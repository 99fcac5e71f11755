"""Issue-5 activations and unary math on the edge values, as Paddle 2.6.2's wheel computed them
(dygraph, CPU, float32): NaN, +-inf, -0.0, halves, the sign of zero results."""

from __future__ import annotations

import numpy as np
import pytest

from phi.core.errors import PhiError
from tests.phi.kernels.conftest import assert_array

NAN, INF = np.nan, np.inf
X = np.array([NAN, -INF, INF, -0.0, -1.5, 0.5, 2.5, -2.5, 0.49999997, 30.0], np.float32)

# Paddle 2.6.2 outputs for X (paddle.nn.functional / paddle.* on CPU)
PADDLE = {
    ("leaky_relu", (0.1,)): [NAN, -INF, INF, -0.0, -0.15000000596046448, 0.5, 2.5, -0.25,
                             0.4999999701976776, 30.0],
    ("elu", (0.5,)): [NAN, -0.5, INF, -0.0, -0.38843491673469543, 0.5, 2.5, -0.4589574933052063,
                      0.4999999701976776, 30.0],
    ("hardsigmoid", (0.1666666716337204, 0.5)): [NAN, 0.0, 1.0, 0.5, 0.24999994039535522,
                                                 0.5833333730697632, 0.9166667461395264,
                                                 0.08333325386047363, 0.5833333730697632, 1.0],
    ("swish", ()): [NAN, NAN, INF, -0.0, -0.2736382782459259, 0.3112296760082245,
                    2.310354471206665, -0.189645454287529, 0.3112296462059021, 30.0],
    ("silu", ()): [NAN, NAN, INF, -0.0, -0.2736383080482483, 0.3112296760082245,
                   2.310354471206665, -0.1896454393863678, 0.3112296462059021, 30.0],
    ("mish", (20.0,)): [NAN, NAN, INF, -0.0, -0.2980997860431671, 0.37524524331092834,
                        2.4713923931121826, -0.19681620597839355, 0.37524521350860596, 30.0],
    ("gelu", (False,)): [NAN, NAN, INF, -0.0, -0.10021081566810608, 0.3457312285900116,
                         2.48447585105896, -0.015524178743362427, 0.3457311987876892, 30.0],
    ("gelu", (True,)): [NAN, NAN, INF, -0.0, -0.10042843222618103, 0.3457140028476715,
                        2.4849157333374023, -0.015084296464920044, 0.3457139730453491, 30.0],
    # +inf sits in Eigen's first 8-float packet: fast-math psqrt gives NaN (re-checked with the
    # wheel; see phi/kernels/activation.py, its Eigen packet sqrt)
    ("sqrt", ()): [NAN, NAN, NAN, 0.0, NAN, 0.7071067690849304, 1.5811389684677124, NAN,
                   0.7071067690849304, 5.4772257804870605],
    ("rsqrt", ()): [NAN, NAN, 0.0, -INF, NAN, 1.4142135381698608, 0.6324554681777954, NAN,
                    1.4142135381698608, 0.18257418274879456],
    ("abs", ()): [NAN, INF, INF, 0.0, 1.5, 0.5, 2.5, 2.5, 0.4999999701976776, 30.0],
    ("log", ()): [NAN, NAN, INF, -INF, NAN, -0.6931471824645996, 0.9162907600402832, NAN,
                  -0.6931472420692444, 3.4011974334716797],
    ("floor", ()): [NAN, -INF, INF, -0.0, -2.0, 0.0, 2.0, -3.0, 0.0, 30.0],
    ("ceil", ()): [NAN, -INF, INF, -0.0, -1.0, 1.0, 3.0, -2.0, 1.0, 30.0],
    ("round", ()): [NAN, -INF, INF, -0.0, -2.0, 1.0, 3.0, -3.0, 0.0, 30.0],
    ("sign", ()): [NAN, -1.0, 1.0, 0.0, -1.0, 1.0, 1.0, -1.0, 1.0, 1.0],
    ("erf", ()): [NAN, -1.0, 1.0, -0.0, -0.9661049842834473, 0.5204998850822449,
                  0.9995930790901184, -0.9995930790901184, 0.5204998254776001, 1.0],
}


@pytest.mark.parametrize(("op", "attrs"), list(PADDLE), ids=[f"{k[0]}{k[1]}" for k in PADDLE])
def test_float32_edge_values_match_paddle(run_op, op, attrs):
    want = np.array(PADDLE[(op, attrs)], np.float32)
    got = run_op(op, X, *attrs)
    assert_array(got, want, rtol=1e-5, atol=1e-7)
    # the sign of zeros too (sqrt(-0.0) is +0.0 in Paddle, erf(-0.0) is -0.0)
    zero = want == 0
    assert (np.signbit(got[zero]) == np.signbit(want[zero])).all()


@pytest.mark.parametrize(("op", "x", "want"), [
    ("log", np.array([1, 2, 10, 0], np.int32),
     np.array([0.0, 0.6931472, 2.3025851, -INF], np.float32)),
    ("log", np.array([1], np.int64), np.array([0.0], np.float32)),
    ("abs", np.array([-2**31, -3], np.int32), np.array([-2**31, 3], np.int32)),
    ("sign", np.array([-3, 0, 5], np.int32), np.array([-1, 0, 1], np.int32)),
    ("sign", np.array([0, 5], np.uint8), np.array([0, 1], np.uint8)),
    ("erf", np.array([0.5, 1.0], np.float16), np.array([0.52, 0.8423], np.float16)),
    ("abs", np.array([3 + 4j], np.complex64), np.array([5.0], np.float32)),
    ("sqrt", np.zeros((0, 2), np.float64), np.zeros((0, 2), np.float64)),
    ("round", np.array(-0.5, np.float64), np.array(-1.0, np.float64)),
], ids=["log_i32", "log_i64", "abs_int_min", "sign_i32", "sign_u8", "erf_f16", "abs_c64",
        "sqrt_size0", "round_0d"])
def test_other_dtypes(run_op, op, x, want):
    # float16 erf: Paddle's value is one float16 ulp below the correctly rounded one we give
    assert_array(run_op(op, x), want, rtol=1e-3 if x.dtype == np.float16 else 1e-6)


def test_erf_float64_is_accurate(run_op):
    import math

    x = np.linspace(-7, 7, 2001)
    want = np.array([math.erf(v) for v in x])
    assert_array(run_op("erf", x), want, rtol=4e-16, atol=1e-300)


def test_clip_keeps_nan_and_refuses_min_above_max(run_op):
    x = np.array([NAN, -5.0, 0.5, 5.0], np.float32)
    assert_array(run_op("clip", x, -1.0, 1.0), np.array([NAN, -1.0, 0.5, 1.0], np.float32))
    # min / max converted to T first: on int64, -2.5 -> -2 and 3.7 -> 3
    assert_array(run_op("clip", np.array([-9, 9], np.int64), -2.5, 3.7),
                 np.array([-2, 3], np.int64))
    with pytest.raises(PhiError, match="max should be greater than or equal to min"):
        run_op("clip", x, 2.0, 1.0)


def test_pow_integer_and_float(run_op):
    assert_array(run_op("pow", np.array([-2, 3], np.int32), 3.0), np.array([-8, 27], np.int32))
    assert_array(run_op("pow", np.array([4.0, -1.0], np.float64), 0.5),
                 np.array([2.0, NAN], np.float64))


def test_prelu_modes(run_op):
    x = np.array([[[-1.0, 2.0], [-3.0, -4.0]]], np.float32)  # [1, 2, 2]
    alpha = np.array([0.5, 0.25], np.float32)
    # channel, NCHW: alpha per dim 1 (rows); NHWC: per last dim (columns)
    assert_array(run_op("prelu", x, alpha, "NCHW", "channel"),
                 np.array([[[-0.5, 2.0], [-0.75, -1.0]]], np.float32))
    assert_array(run_op("prelu", x, alpha, "NHWC", "channel"),
                 np.array([[[-0.5, 2.0], [-1.5, -1.0]]], np.float32))
    assert_array(run_op("prelu", x, np.array([0.1], np.float32), "NCHW", "all"),
                 np.array([[[-0.1, 2.0], [-0.3, -0.4]]], np.float32), rtol=1e-6)
    elem = np.array([[[1.0, 2.0], [3.0, 4.0]]], np.float32)
    assert_array(run_op("prelu", x, elem, "NCHW", "element"),
                 np.array([[[-1.0, 2.0], [-9.0, -16.0]]], np.float32))
    with pytest.raises(PhiError, match="mode 'channel'"):
        run_op("prelu", x, np.ones(3, np.float32), "NCHW", "channel")


def test_where_needs_equal_shapes(run_op):
    c = np.array([True, False])
    assert_array(run_op("where", c, np.array([1, 2], np.int64), np.array([7, 8], np.int64)),
                 np.array([1, 8], np.int64))
    with pytest.raises(PhiError, match="should be same"):
        run_op("where", c, np.ones(2, np.float32), np.ones((2, 2), np.float32))
