"""Conformance cases for the activation and unary math ops, ported from the input recipes,
attributes, shapes (0-d included) and dtypes of Paddle's test/legacy_test/test_activation_op.py
(one TestXxx per op, its _ZeroDim, fp16 / bf16 and complex variants).

References are float64 formulas written from Paddle's functor definitions. Expected values come
from Paddle 2.6.2 itself (``"paddle"``, recorded in data/test_activation.npz) for the float16 /
bfloat16 cases: Paddle's CPU computes them in float32 and converts back by truncation, which the
unit tests' numpy reference (rounded to nearest) does not model (see opcase.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from phi.core.errors import NotFound
from fluid_compat import run_op

from .opcase import BF16, Case, check, rs

SIG = lambda x: 1.0 / (1.0 + np.exp(-x))  # noqa: E731
_erf = np.vectorize(math.erf)


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta)


def _round(x):  # std::round: half away from zero
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _gelu(x, approximate=False):
    if approximate:
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + _erf(x / np.sqrt(2)))


SELU_SCALE, SELU_ALPHA = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717

# op -> (reference(x, **attrs), low, high, shape, [attribute sets]); recipes of the unit tests
# (TestRelu: uniform(-1, 1) of [11, 17] with |x| < 0.005 moved to 0.02, ...).
ACT = {
    "relu": (lambda x: np.maximum(x, 0), -1, 1, [11, 17], [{}]),
    "gelu": (lambda x, approximate=False: _gelu(x, approximate), -1, 1, [11, 17],
             [{"approximate": False}, {"approximate": True}]),
    "sigmoid": (SIG, -1, 1, [11, 17], [{}]),
    "logsigmoid": (lambda x: -np.log1p(np.exp(-x)), -1, 1, [11, 17], [{}]),
    "tanh": (np.tanh, 0.1, 1, [11, 17], [{}]),
    "tanh_shrink": (lambda x: x - np.tanh(x), -10, 10, [10, 17], [{}]),
    "exp": (np.exp, 0.1, 1, [11, 17], [{}]),
    "expm1": (np.expm1, 0.1, 1, [11, 17], [{}]),
    "log": (np.log, 0.1, 1, [11, 17], [{}]),
    "log2": (np.log2, 0.1, 1, [11, 17], [{}]),
    "log10": (np.log10, 0.1, 1, [11, 17], [{}]),
    "log1p": (np.log1p, 0.1, 1, [11, 17], [{}]),
    "sqrt": (np.sqrt, 0.1, 1, [11, 17], [{}]),
    "rsqrt": (lambda x: 1 / np.sqrt(x), 1, 10, [10, 12], [{}]),
    "abs": (np.abs, -1, 1, [4, 25], [{}]),
    "ceil": (np.ceil, -1, 1, [10, 12], [{}]),
    "floor": (np.floor, -1, 1, [10, 12], [{}]),
    "round": (_round, -1, 1, [10, 12], [{}]),
    "reciprocal": (lambda x: 1 / x, 1, 2, [11, 17], [{}]),
    "square": (np.square, 0.1, 1, [11, 17], [{}]),
    "sin": (np.sin, -0.95, 0.95, [10, 12], [{}]),
    "cos": (np.cos, -0.95, 0.95, [10, 12], [{}]),
    "tan": (np.tan, -0.95, 0.95, [10, 12], [{}]),
    "asin": (np.arcsin, -0.95, 0.95, [10, 12], [{}]),
    "acos": (np.arccos, -0.95, 0.95, [10, 12], [{}]),
    "atan": (np.arctan, 0.1, 1, [10, 12], [{}]),
    "sinh": (np.sinh, 0.1, 1, [11, 17], [{}]),
    "cosh": (np.cosh, 0.1, 1, [11, 17], [{}]),
    "asinh": (np.arcsinh, 1, 2, [11, 17], [{}]),
    "acosh": (np.arccosh, 2, 3, [11, 17], [{}]),
    "atanh": (np.arctanh, -0.9, 0.9, [11, 17], [{}]),
    "softplus": (lambda x, beta=1.0, threshold=20.0: _softplus(x, beta, threshold), -1, 1,
                 [10, 12], [{}, {"beta": 2.0, "threshold": 15.0}, {"beta": 10.0,
                                                                     "threshold": 5.0}]),
    "softsign": (lambda x: x / (1 + np.abs(x)), -1, 1, [10, 12], [{}]),
    "softshrink": (lambda x, **a: np.where(x > a.get("lambda", 0.5), x - a.get("lambda", 0.5),
                                           np.where(x < -a.get("lambda", 0.5),
                                                    x + a.get("lambda", 0.5), 0)),
                   0.25, 10, [10, 12], [{"lambda": 0.5}, {"lambda": 3.0}]),
    "leaky_relu": (lambda x, alpha=0.02: np.where(x > 0, x, alpha * x), -1, 1, [11, 17],
                   [{}, {"alpha": 0.0}, {"alpha": -0.01}, {"alpha": 10.0}]),
    "elu": (lambda x, alpha=1.0: np.where(x > 0, x, alpha * (np.exp(x) - 1)), -3, 3, [10, 12],
            [{"alpha": 1.0}, {"alpha": -0.2}]),
    "celu": (lambda x, alpha=1.0: np.maximum(0, x) + np.minimum(0, alpha * np.expm1(x / alpha)),
             -3, 3, [10, 12], [{"alpha": 1.5}, {"alpha": 0.2}]),
    "selu": (lambda x, scale=SELU_SCALE, alpha=SELU_ALPHA:
             scale * np.where(x > 0, x, alpha * np.expm1(x)), -3, 3, [3, 5, 5, 10],
             [{"scale": SELU_SCALE, "alpha": SELU_ALPHA}]),
    # Paddle 2.6.2 maps the legacy relu6 to phi's relu6, fixed at 6: the op's `threshold`
    # attribute is ignored (checked with the wheel), so the reference ignores it too.
    "relu6": (lambda x, threshold=6.0: np.minimum(np.maximum(x, 0), 6.0), -1, 10, [10, 12],
              [{}, {"threshold": 4.0}]),
    "brelu": (lambda x, t_min=0.0, t_max=24.0: np.clip(x, t_min, t_max), -5, 10, [10, 12],
              [{"t_min": 1.0, "t_max": 4.0}, {}]),
    "hard_sigmoid": (lambda x, slope=0.2, offset=0.5: np.clip(slope * x + offset, 0, 1), -5, 5,
                     [10, 12], [{}, {"slope": 0.166666666666667, "offset": 0.5},
                                {"slope": 0.2, "offset": 0.4}]),
    "hard_swish": (lambda x, threshold=6.0, scale=6.0, offset=3.0:
                   x * np.clip(x + offset, 0, threshold) / scale, -6, 6, [10, 12],
                   [{}, {"threshold": 6.0, "scale": 6.0, "offset": 3.0}]),
    # likewise phi's swish is x * sigmoid(x): the legacy `beta` is ignored by Paddle 2.6.2
    "swish": (lambda x, beta=1.0: x * SIG(x), -1, 1, [10, 12], [{}, {"beta": 2.0}]),
    "silu": (lambda x: x * SIG(x), -1, 1, [11, 17], [{}]),
    "mish": (lambda x, threshold=20.0: x * np.tanh(_softplus(x, 1.0, threshold)), -1, 1,
             [10, 12], [{}, {"threshold": 0.5}]),
    "thresholded_relu": (lambda x, threshold=1.0: np.where(x > threshold, x, 0), -20, 20,
                         [10, 12], [{}, {"threshold": 0.25}]),
    "stanh": (lambda x, scale_a=0.67, scale_b=1.7159: scale_b * np.tanh(scale_a * x), 0.1, 1,
              [10, 12], [{}, {"scale_a": 2.0, "scale_b": 0.5}]),
    "pow": (lambda x, factor=1.0: x ** factor, 1, 2, [11, 17], [{"factor": 3.0},
                                                               {"factor": -0.5}]),
}

# Paddle's CPU dtypes beyond float32 / float64 that the unit tests exercise (cpu_ops.json).
COMPLEX = ["sigmoid", "tanh", "exp", "expm1", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
           "cosh", "asinh", "acosh", "atanh", "silu", "softsign", "abs"]
INTS = ["exp", "expm1", "log", "log2", "log10", "log1p", "abs", "square", "pow"]
FP16 = ["exp", "expm1", "log", "log2", "log10", "log1p"]
BF16_OPS = ["log", "log2", "log10", "log1p"]
# ops whose unit test moves values off a kink / jump: |x| < 0.005 -> 0.02 (OpTest's recipe)
KINK = {"relu", "abs", "leaky_relu", "relu6", "elu", "celu", "selu", "softshrink", "round",
        "thresholded_relu", "brelu", "hard_swish", "hard_sigmoid"}


def _input(op, lo, hi, shape, dtype, seed):
    x = rs(seed).uniform(lo, hi, shape)
    if op in KINK:
        x[np.abs(x) < 0.005] = 0.02
        x[np.abs(x - np.round(x)) < 0.005] += 0.013  # away from every integer jump / kink
    if np.dtype(dtype).kind == "c":
        return (x + 1j * rs(seed + 1).uniform(lo, hi, shape)).astype(dtype)
    return x.astype(dtype)


def _cases():
    out = []
    for n, (op, (ref, lo, hi, shape, attr_sets)) in enumerate(ACT.items()):
        for k, attrs in enumerate(attr_sets):
            for dt, shp in (("float32", shape), ("float64", shape), ("float32", [])):
                x = _input(op, lo, hi, shp, dt, 100 * n + k)
                tag = "0d" if shp == [] else ""
                out.append(Case(f"{op}-{k}-{dt}{tag}", op, {"X": x}, attrs,
                                {"Out": np.asarray(ref(x.astype(np.float64), **attrs)
                                                   ).astype(dt)}))
        if op in COMPLEX:
            for dt in ("complex64", "complex128"):
                x = _input(op, lo, hi, [3, 4], dt, 100 * n + 50)
                ref_out = ref(x.astype(np.complex128))
                out.append(Case(f"{op}-{dt}", op, {"X": x}, {},
                                {"Out": ref_out.astype(np.float64 if op == "abs" and dt ==
                                                       "complex128" else
                                                       np.float32 if op == "abs" else dt)}))
        if op in INTS:
            for dt in ("int32", "int64"):
                x = rs(100 * n + 60).randint(1, 6, [3, 4]).astype(dt)
                attrs = attr_sets[0] if op == "pow" else {}
                out.append(Case(f"{op}-{dt}", op, {"X": x}, attrs, "paddle"))
        for dt in ["float16"] * (op in FP16) + ["bfloat16"] * (op in BF16_OPS):
            x = _input(op, lo, hi, [11, 17], BF16 if dt == "bfloat16" else dt, 100 * n + 70)
            out.append(Case(f"{op}-{dt}", op, {"X": x}, {}, "paddle"))
    return out


# NaN / Inf and empty tensors: Paddle's answers (IEEE propagation through each functor).
SPECIAL = np.array([0.0, -0.0, -1.0, 1.0, np.inf, -np.inf, np.nan, 1e-30], np.float32)
EDGE = [Case(f"{op}-special", op, {"X": SPECIAL}, {}, "paddle")
        for op in ("relu", "exp", "log", "sqrt", "rsqrt", "sigmoid", "tanh", "abs", "round",
                   "reciprocal", "softplus", "gelu", "log1p", "silu", "leaky_relu", "elu",
                   "mish", "swish", "logsigmoid", "hard_swish", "floor")]
EDGE += [Case(f"{op}-empty", op, {"X": np.zeros([0, 3], np.float32)}, {},
              {"Out": np.zeros([0, 3], np.float32)}) for op in ("relu", "exp", "sigmoid")]

CASES = _cases() + EDGE


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_activation(case):
    check("test_activation", case)


@pytest.mark.parametrize("op,dtype", [("relu", "float16"), ("sqrt", "bfloat16"),
                                      ("gelu", "int32"), ("tanh", "int64")])
def test_missing_dtype_is_typed_not_found(op, dtype):
    x = np.ones([2, 3], BF16 if dtype == "bfloat16" else dtype)
    with pytest.raises(NotFound) as info:
        run_op(op, {"X": x}, {})
    msg = str(info.value)
    assert f"({op})" in msg and "float32" in msg and "float64" in msg


@pytest.mark.parametrize("n,dtype", [(3, "float32"), (9, "float32"), (9, "float64")])
def test_sqrt_signed_zero_and_inf(n, dtype):
    """Paddle 2.6.2 (checked with the wheel): float32 sqrt runs Eigen's fast packet psqrt on whole
    8-float packets (-0.0 -> +0.0, +inf -> NaN) and std::sqrt on the rest (-0.0 stays -0.0);
    float64 is IEEE throughout."""
    x = np.full(n, -0.0, dtype)
    x[-1] = np.inf
    got = run_op("sqrt", {"X": x}, {})["Out"][0]
    packet = n // 8 * 8 if dtype == "float32" else 0
    assert not np.signbit(got[:packet]).any() and np.signbit(got[packet:-1]).all()
    assert np.isinf(got[-1]) if packet < n else np.isnan(got[-1])
    x = np.full(16, np.inf, dtype)
    assert np.isnan(run_op("sqrt", {"X": x}, {})["Out"][0]).all() == (dtype == "float32")
