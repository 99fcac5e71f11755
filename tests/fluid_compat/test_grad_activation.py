"""Activation / unary-math grad ops (phi/kernels/activation.py, fluid_kernels/activation.py
and op_hooks.yaml): float64 central differences through the bridge's own forward ops, and
hand-worked values of Paddle's functors at kinks, signed zeros, NaN / inf and complex inputs.
Paddle's own outputs are the tests/fixtures/grad_ops cases (test_grad_cases.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fluid_compat.framework.op_registry import get_op_info
from fluid_compat.imperative import run_op, run_op_tensors

NAN, INF = math.nan, math.inf
X = np.array([-1.7, -0.6, 0.35, 0.8, 1.9])
POS = np.array([0.3, 0.7, 1.4, 2.5, 3.2])
UNIT = np.array([-0.8, -0.3, 0.1, 0.45, 0.9])
BIG = np.array([1.2, 1.7, 2.5, 3.1, 4.0])


def _names(op):
    # the Bessel / polygamma ops name their slots x and out
    return ("x", "out") if "x" in get_op_info(op).input_slots else ("X", "Out")


def _fwd(op, x, attrs):
    xs, outs = _names(op)
    return run_op(op, {xs: x}, attrs)[outs][0]


def _grad(op, x, dout, attrs):
    xs, outs = _names(op)
    slots = get_op_info(f"{op}_grad").input_slots  # X and / or Out, as Paddle's maker gives
    feed = {xs: x, f"{outs}@GRAD": dout}
    if outs in slots:
        feed[outs] = _fwd(op, x, attrs)
    got = run_op(f"{op}_grad", {k: v for k, v in feed.items() if k in slots}, attrs)
    return got[f"{xs}@GRAD"][0]


# forward op, x, attributes (smooth points only: central differences need them)
SMOOTH = [
    ("sin", X, {}), ("cos", X, {}), ("tan", UNIT, {}), ("asin", UNIT, {}), ("acos", UNIT, {}),
    ("atan", X, {}), ("sinh", X, {}), ("cosh", X, {}), ("asinh", X, {}), ("acosh", BIG, {}),
    ("atanh", UNIT, {}), ("exp", X, {}), ("expm1", X, {}), ("log", POS, {}), ("log2", POS, {}),
    ("log10", POS, {}), ("log1p", POS, {}), ("sqrt", POS, {}), ("rsqrt", POS, {}),
    ("reciprocal", POS, {}), ("square", X, {}), ("abs", X, {}), ("relu", X, {}),
    ("relu6", X * 4, {}), ("sigmoid", X, {}), ("tanh", X, {}), ("silu", X, {}),
    ("swish", X, {}), ("mish", X, {"threshold": 20.0}), ("softsign", X, {}),
    ("logsigmoid", X, {}), ("tanh_shrink", X, {}), ("erf", X, {}), ("erfinv", UNIT, {}),
    ("gelu", X, {"approximate": False}), ("gelu", X, {"approximate": True}),
    ("elu", X, {"alpha": 0.7}), ("elu", X, {"alpha": -0.4}), ("celu", X, {"alpha": 1.3}),
    ("selu", X, {"scale": 1.0507009873554805, "alpha": 1.6732632423543772}),
    ("leaky_relu", X, {"alpha": 0.1}), ("brelu", X * 3, {"t_min": -2.0, "t_max": 3.0}),
    ("hard_sigmoid", X, {"slope": 0.2, "offset": 0.5}), ("hard_swish", X * 2, {}),
("softshrink", X, {"lambda": 0.5}),
    ("thresholded_relu", X, {"threshold": 0.5}), ("softplus", X, {"beta": 2.0, "threshold": 3.0}),
    ("stanh", X, {"scale_a": 0.67, "scale_b": 1.7159}), ("logit", UNIT / 2 + 0.5, {"eps": 0.0}),
    ("pow", POS, {"factor": 2.5}), ("digamma", POS, {}), ("lgamma", POS, {}),
    ("i0", X, {}), ("i0e", X, {}), ("i1", X, {}), ("i1e", X, {}), ("polygamma", POS, {"n": 1}),
    ("soft_relu", X, {"threshold": 40.0}), ("floor", X + 0.01, {}), ("ceil", X, {}),
    ("round", X, {}), ("trunc", X, {}), ("angle", X, {}),
]


@pytest.mark.parametrize("op, x, attrs", SMOOTH, ids=[f"{c[0]}{i}" for i, c in enumerate(SMOOTH)])
def test_central_differences(op, x, attrs):
    dout = np.linspace(-1.3, 0.9, x.size)
    got = _grad(op, x, dout, attrs)
    h = 1e-6
    want = np.array([(dout @ _fwd(op, x + h * e, attrs) - dout @ _fwd(op, x - h * e, attrs))
                     / (2 * h) for e in np.eye(x.size)])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("op, x, attrs, want", [
    ("relu", [0.0, -0.0, NAN], {}, [0.0, 0.0, 0.0]),  # Out > 0 is false at 0 and NaN
    ("leaky_relu", [0.0, -0.0, -2.0], {"alpha": 0.25}, [1.0, 1.0, 0.25]),  # x >= 0 -> 1
    ("abs", [0.0, -0.0, -INF], {}, [0.0, 0.0, NAN]),  # x / |x| with 0 at 0
    ("i0e", [0.0, -0.0], {}, [-1.0, 1.0]),  # sign(-0.0) = -1 in Paddle's values
    ("i1", [0.0], {}, [0.5]), ("i1e", [-0.0], {}, [0.5]),
    ("celu", [INF, -INF, 0.0], {"alpha": 1.0}, [NAN, 0.0, 1.0]),  # inf * 0 in the sum
    ("elu", [0.0, -INF], {"alpha": 1.0}, [1.0, 0.0]),  # (Out + alpha) at Out = 0 / -alpha
    ("logit", [0.0, 1.0, 1.5, 0.05], {"eps": 0.1}, [0.0, 0.0, 0.0, 0.0]),  # outside [eps, 1-eps]
    ("softplus", [1.0, 10.0], {"beta": 1.0, "threshold": 5.0}, [1 / (1 + math.exp(-1)), 1.0]),
    ("hard_swish", [-3.0, 3.0, 0.0], {}, [0.0, 1.0, 0.5]),
    ("thresholded_relu", [1.0, 1.5], {"threshold": 1.0}, [0.0, 1.0]),
    ("hard_shrink", [0.5, -0.6, 0.2], {"threshold": 0.5}, [0.0, 1.0, 0.0]),
    ("digamma", [0.0, -2.0], {}, [INF, INF]),  # trigamma's poles: zeta(2, q) = inf
])
def test_kinks_and_edges(op, x, attrs, want):
    got = _grad(op, np.array(x), np.ones(len(x)), attrs)
    np.testing.assert_allclose(got, np.array(want), rtol=1e-7, atol=0)


def test_zero_grads_propagate_nan_and_trunc_gives_zeros():
    dout = np.array([INF, NAN, 2.0], np.float32)
    got = run_op("floor_grad", {"Out@GRAD": dout})["X@GRAD"][0]
    assert np.isnan(got[:2]).all() and got[2] == 0  # 0 * dout
    got = run_op("trunc_grad", {"Out@GRAD": dout})["X@GRAD"][0]
    np.testing.assert_array_equal(got, np.zeros(3, np.float32))


def test_complex_takes_the_conjugate_derivative():
    x = np.array([0.3 + 0.4j, -1.0 + 2.0j], np.complex128)
    dout = np.array([1.0 - 0.5j, 0.2 + 0.1j], np.complex128)
    got = run_op("sin_grad", {"X": x, "Out@GRAD": dout})["X@GRAD"][0]
    np.testing.assert_allclose(got, dout * np.conj(np.cos(x)), rtol=1e-14)
    out = np.tanh(x)
    got = run_op("tanh_grad", {"Out": out, "Out@GRAD": dout})["X@GRAD"][0]
    np.testing.assert_allclose(got, dout * np.conj(1 - out * out), rtol=1e-14)
    # complex abs / angle: real Out@GRAD, X's dtype chooses the kernel
    got = run_op("angle_grad", {"X": x, "Out@GRAD": np.array([1.0, 2.0])})["X@GRAD"][0]
    np.testing.assert_allclose(got, np.array([1.0, 2.0]) * (-x.imag + 1j * x.real) / abs(x) ** 2)


def test_integer_grads():
    x = np.array([-3, 0, 4], np.int32)
    dout = np.array([2, 5, -1], np.int32)
    assert run_op("square_grad", {"X": x, "Out@GRAD": dout})["X@GRAD"][0].tolist() == [-12, 0, -8]
    got = run_op("pow_grad", {"X": x, "Out@GRAD": dout}, {"factor": 3.0})["X@GRAD"][0]
    assert got.dtype == np.int32 and got.tolist() == [54, 0, -48]
    assert run_op("abs_grad", {"X": x, "Out@GRAD": dout})["X@GRAD"][0].tolist() == [-2, 0, -1]


def test_selu_grad_rounds_alpha_times_scale_to_float():
    # SeluGradFunctor keeps alpha * scale in a C++ float
    la = float(np.float32(np.float32(1.6732632423543772) * np.float32(1.0507009873554805)))
    out = np.array([-0.5, 0.0, 2.0])
    got = run_op("selu_grad", {"Out": out, "Out@GRAD": np.ones(3)},
                 {"scale": 1.0507009873554805, "alpha": 1.6732632423543772})["X@GRAD"][0]
    np.testing.assert_array_equal(got, [-0.5 + la, la, float(np.float32(1.0507009873554805))])


def test_x_grad_keeps_the_lod_of_the_tensor_it_depends_on():
    lod = [[0, 2, 5]]
    x = (np.linspace(0.1, 1.0, 5), lod)
    got = run_op_tensors("relu_grad", {"Out": x, "Out@GRAD": np.ones(5)})["X@GRAD"][0]
    assert [list(level) for level in got.lod] == lod
    got = run_op_tensors("abs_grad", {"X": x, "Out@GRAD": np.ones(5)})["X@GRAD"][0]
    assert [list(level) for level in got.lod] == lod
    got = run_op_tensors("ceil_grad", {"Out@GRAD": x})["X@GRAD"][0]
    assert [list(level) for level in got.lod] == lod


def test_straight_through_estimator_copies_the_gradient():
    dout = np.array([[1.5, -2.0]], np.float32)
    got = run_op("stright_throuth_estimator_grad", {"Out@GRAD": dout})["X@GRAD"][0]
    np.testing.assert_array_equal(got, dout)


# -- double grads: the derivative of the grad op, by central differences ------------------------

def _run_desc(desc, vals, attrs):
    feed = {slot: [vals[n] for n in names] for slot, names in desc.inputs.items() if names}
    got = run_op(desc.type, {k: v if len(v) > 1 else v[0] for k, v in feed.items()}, attrs)
    return {n: got[slot][i] for slot, names in desc.outputs.items()
            for i, n in enumerate(names) if slot in got}


DOUBLE = [
    ("relu", {"X": X}, {}), ("sigmoid", {"X": X}, {}), ("tanh", {"X": X}, {}),
    ("leaky_relu", {"X": X}, {"alpha": 0.2}), ("elu", {"X": X}, {"alpha": 0.8}),
    ("elu", {"X": X}, {"alpha": -0.3}), ("celu", {"X": X}, {"alpha": 1.4}),
    ("softplus", {"X": X}, {"beta": 1.5, "threshold": 2.0}), ("sqrt", {"X": POS}, {}),
    ("rsqrt", {"X": POS}, {}), ("square", {"X": X}, {}), ("log", {"X": POS}, {}),
    ("pow", {"X": POS}, {"factor": 2.5}), ("abs", {"X": X}, {}),
    ("matmul_v2", {"X": np.linspace(-1, 1, 24).reshape(2, 3, 4),
                   "Y": np.linspace(0.5, -2, 20).reshape(4, 5)},
     {"trans_x": False, "trans_y": False}),  # (a grad op gets no attribute defaults)
    ("matmul_v2", {"X": np.linspace(-1, 1, 24).reshape(2, 4, 3),
                   "Y": np.linspace(0.5, -2, 40).reshape(2, 5, 4)},
     {"trans_x": True, "trans_y": True}),
    ("matmul_v2", {"X": np.linspace(-1, 1, 4), "Y": np.linspace(0.5, -2, 4)},
     {"trans_x": False, "trans_y": False}),
]


@pytest.mark.parametrize("op, inputs, attrs", DOUBLE,
                         ids=[f"{c[0]}{i}" for i, c in enumerate(DOUBLE)])
def test_double_grad_is_the_derivative_of_the_grad(op, inputs, attrs):
    """Each output <v>@GRAD of the double-grad op is dL/dv, L = sum(<o>@GRAD * o) over the grad
    op's outputs o, the grad op run on v (Out recomputed from X when X moves)."""
    from opmakers.grad import grad_op_descs

    rng = np.random.default_rng(7)
    vals = {k.lower(): v for k, v in inputs.items()}
    vals["out"] = run_op(op, inputs, attrs)["Out"][0]
    vals["out@GRAD"] = rng.uniform(-1, 1, vals["out"].shape)
    (g,) = grad_op_descs(op, {k: [k.lower()] for k in inputs}, {"Out": ["out"]}, attrs)
    (dd,) = grad_op_descs(g.type, g.inputs, g.outputs, attrs)
    outs = [n for names in g.outputs.values() for n in names]
    bilinear = op == "matmul_v2"  # (matmul_v2_grad is another family's: L from the forward)
    if not bilinear:
        vals.update(_run_desc(g, vals, attrs))
    for n in outs:
        vals[n + "@GRAD"] = rng.uniform(-1, 1, vals[n[:-len("@GRAD")]].shape)
    got = _run_desc(dd, vals, attrs)

    def loss(v):
        if bilinear:  # sum(dout * (ddx @ y + x @ ddy)), exact by central differences
            f = [run_op(op, {"X": v["x"] + s * v["x@GRAD@GRAD"],
                             "Y": v["y"] + s * v["y@GRAD@GRAD"]}, attrs)["Out"][0]
                 for s in (1.0, -1.0)]
            return float(np.sum(v["out@GRAD"] * (f[0] - f[1]) / 2))
        res = _run_desc(g, v, attrs)
        return sum(float(np.sum(v[n + "@GRAD"] * res[n])) for n in outs)

    def moved(base, delta):
        v = dict(vals, **{base: vals[base] + delta})
        if base == "x" and "out" in v and not bilinear:
            v["out"] = run_op(op, {"X": v["x"]}, attrs)["Out"][0]
        return v

    assert got
    for name, value in got.items():
        base = name[:-len("@GRAD")]
        want = np.zeros(vals[base].size)
        for i in range(want.size):
            step = np.zeros(vals[base].size)
            step[i] = 1e-6
            step = step.reshape(vals[base].shape)
            want[i] = (loss(moved(base, step)) - loss(moved(base, -step))) / 2e-6
        np.testing.assert_allclose(value.ravel(), want, rtol=1e-5, atol=1e-7, err_msg=name)
