"""Edge cases across the families of this suite (integer overflow and negative operands, NaN /
Inf through every activation, casts of NaN / out-of-range values, half precision overflow,
empty and 0-D inputs, complex activations): the inputs the unit tests' edge classes use, with
Paddle 2.6.2's own outputs as the expected values ("paddle", data/test_edges.npz), because for
these the numpy references of the unit tests either do not exist or disagree with Paddle's C++
(wrapping, truncating casts, std::round, Eigen's special-value handling)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from .opcase import Case, check

BF = ml_dtypes.bfloat16
f32 = np.float32
CASES: list[Case] = []


def add(id_, op, ins, attrs, more=(), outs=None):
    CASES.append(Case(id_, op, ins, attrs, "paddle", more_outputs=more, out_dtype=outs or {}))


add(
    "pow-neg-exp",
    "elementwise_pow",
    {"X": np.array([2, -2, 1, 0, 3], np.int32), "Y": np.array([-1, -1, -3, 2, 0], np.int32)},
    {"axis": -1},
)
add(
    "pow-f-neg",
    "elementwise_pow",
    {"X": np.array([-8, -2, 0, 0], f32), "Y": np.array([1 / 3, 0.5, -1, 0], f32)},
    {"axis": -1},
)
add(
    "pow-bf16",
    "elementwise_pow",
    {"X": np.array([1.5, 2.25, 3], BF), "Y": np.array([2, 3.5, 0.5], BF)},
    {"axis": -1},
)
add(
    "max-bf16",
    "elementwise_max",
    {"X": np.array([1.5, np.nan, 3], BF), "Y": np.array([2, 3.5, np.nan], BF)},
    {"axis": -1},
)
add(
    "mod-f-neg",
    "elementwise_mod",
    {
        "X": np.array([-7.5, 7.5, -0.0, 5, np.inf], f32),
        "Y": np.array([2, -2, 2, np.inf, 2], f32),
    },
    {"axis": -1},
)
add(
    "floordiv-f",
    "elementwise_floordiv",
    {"X": np.array([-7.5, 7.5, -1, 5, 1], f32), "Y": np.array([2, -2, 3, 0, -np.inf], f32)},
    {"axis": -1},
)
add(
    "floordiv-f16",
    "elementwise_floordiv",
    {"X": np.array([-7.5, 7.5, -1, 5], np.float16), "Y": np.array([2, -2, 3, 0.3], np.float16)},
    {"axis": -1},
)
add(
    "div-int-neg",
    "elementwise_div",
    {"X": np.array([-7, 7, -7], np.int64), "Y": np.array([2, -2, -2], np.int64)},
    {"axis": -1},
)
add(
    "add-int32-overflow",
    "elementwise_add",
    {"X": np.array([2**31 - 1], np.int32), "Y": np.array([1], np.int32)},
    {"axis": -1},
)
add("cumsum-int32-overflow", "cumsum", {"X": np.array([2**31 - 1, 1], np.int32)}, {"axis": 0})
add(
    "cast-nan-int",
    "cast",
    {"X": np.array([np.nan, np.inf, -np.inf, 3000000000.0], f32)},
    {"in_dtype": 5, "out_dtype": 2},
)
add(
    "cast-neg-uint8",
    "cast",
    {"X": np.array([-1.5, 300, 255.9], f32)},
    {"in_dtype": 5, "out_dtype": 20},
)
add("cast-int-bool", "cast", {"X": np.array([0, -3, 2], np.int32)}, {"in_dtype": 2, "out_dtype": 0})
add(
    "cast-f64-f32-overflow",
    "cast",
    {"X": np.array([1e300, -1e300, 1e-300], np.float64)},
    {"in_dtype": 6, "out_dtype": 5},
)
add(
    "cast-bf16-f16",
    "cast",
    {"X": np.array([100000.0, 1.7, -3e-08], BF)},
    {"in_dtype": 22, "out_dtype": 4},
)
add("scale-int-bias", "scale", {"X": np.array([1, -2, 3], np.int32)}, {"scale": 2.5, "bias": 1.7})
add("scale-uint8-neg", "scale", {"X": np.array([1, 2, 3], np.uint8)}, {"scale": -1.0, "bias": 0.0})
add("scale-bool", "scale", {"X": np.array([True, False])}, {"scale": 2.0, "bias": 1.0})
add(
    "scale-f16-big",
    "scale",
    {"X": np.array([60000, 1, -3], np.float16)},
    {"scale": 2.0, "bias": 0.1},
)
add("clip-min-gt-max", "clip", {"X": np.array([0.0, 1.0, 2.0], f32)}, {"min": 1.5, "max": 0.5})
add("clip-int-frac", "clip", {"X": np.array([-3, 0, 3], np.int32)}, {"min": -1.5, "max": 1.5})
add("softmax-empty", "softmax", {"X": np.zeros([0, 3], f32)}, {"axis": -1})
add("softmax-1", "softmax", {"X": np.array([[2.0]], f32)}, {"axis": -1})
add("log_softmax-0d", "log_softmax", {"X": np.array(2.0, f32)}, {"axis": -1})
add(
    "log_softmax-large", "log_softmax", {"X": np.array([[10000.0, -10000.0, 0]], f32)}, {"axis": -1}
)
add(
    "swce-0class",
    "softmax_with_cross_entropy",
    {"Logits": np.array([[1.0, 2.0, 3.0]], f32), "Label": np.array([[2]], np.int64)},
    {},
    outs={"Softmax": "float32", "Loss": "float32"},
)
add(
    "swce-int32-label",
    "softmax_with_cross_entropy",
    {"Logits": np.array([[1.0, 2.0, 3.0]], f32), "Label": np.array([[1]], np.int32)},
    {},
    outs={"Softmax": "float32", "Loss": "float32"},
)
add(
    "bce-edge",
    "bce_loss",
    {"X": np.array([0.0, 1.0, 0.5, 1.0], f32), "Label": np.array([0.0, 1.0, 1.0, 0.0], f32)},
    {},
)
add(
    "sce-pos-weight",
    "sigmoid_cross_entropy_with_logits",
    {
        "X": np.array([[1.0, -2.0]], f32),
        "Label": np.array([[1.0, 0.0]], f32),
        "pos_weight": np.array([[2.0, 3.0]], f32),
    },
    {},
)
add(
    "kldiv-neg-target",
    "kldiv_loss",
    {"X": np.array([[-1.0, -2.0]], f32), "Target": np.array([[0.0, -0.5]], f32)},
    {"reduction": "none"},
    outs={"Loss": "float32"},
)
add("mean-empty", "mean", {"X": np.zeros([0, 3], f32)}, {})
add("sum-one-empty", "sum", {"X": [np.zeros([0, 3], f32), np.zeros([0, 3], f32)]}, {})
add("cumsum-empty", "cumsum", {"X": np.zeros([0, 3], f32)}, {"axis": 1})
add("reduce_sum-0d-dim0", "reduce_sum", {"X": np.array(2.0, f32)}, {"dim": [0]})
add(
    "reduce_sum-0d-dim-1-keep",
    "reduce_sum",
    {"X": np.array(2.0, f32)},
    {"dim": [-1], "keep_dim": True},
)
add(
    "reduce_mean-int-neg",
    "reduce_mean",
    {"X": np.array([[-3, -4], [5, 6]], np.int32)},
    {"dim": [1]},
)
add(
    "reduce_prod-int-overflow",
    "reduce_prod",
    {"X": np.array([2**20, 2**20], np.int32)},
    {"dim": [0]},
)
add(
    "reduce_all-float",
    "reduce_all",
    {"X": np.array([[0.5, np.nan], [0.0, 1.0]], f32)},
    {"dim": [1]},
)
add(
    "reduce_any-keep",
    "reduce_any",
    {"X": np.array([[0, 0], [0, 3]], np.int32)},
    {"dim": [1], "keep_dim": True},
)
add(
    "reduce_sum-bool-keep",
    "reduce_sum",
    {"X": np.array([[True, False], [True, True]])},
    {"dim": [0], "keep_dim": True},
)
add(
    "reduce_max-inf",
    "reduce_max",
    {"X": np.array([[-np.inf, -np.inf], [np.inf, 1]], f32)},
    {"dim": [1]},
)
add(
    "equal-eps",
    "equal",
    {"X": np.array([1.0, 1.0], f32), "Y": np.array([1.0 + 1e-07, 1.0 + 2e-07], f32)},
    {},
)
add(
    "equal-f64-eps",
    "equal",
    {"X": np.array([1.0, 1.0]), "Y": np.array([1.0 + 5e-09, 1.0 + 2e-08])},
    {},
)
add(
    "not_equal-inf",
    "not_equal",
    {
        "X": np.array([np.inf, -np.inf, np.nan], f32),
        "Y": np.array([np.inf, np.inf, np.nan], f32),
    },
    {},
)
add("bitwise_not-uint8", "bitwise_not", {"X": np.array([0, 255, 1], np.uint8)}, {})
add("logical_not-float", "logical_not", {"X": np.array([0.0, np.nan, -0.0, 2.0], f32)}, {})
add("hard_sigmoid-nan", "hard_sigmoid", {"X": np.array([np.nan, -np.inf, np.inf], f32)}, {})
add("relu6-nan", "relu6", {"X": np.array([np.nan, -np.inf, np.inf, 7], f32)}, {})
add(
    "brelu-nan",
    "brelu",
    {"X": np.array([np.nan, -np.inf, np.inf, 7], f32)},
    {"t_min": 1.0, "t_max": 4.0},
)
add("thresholded-nan", "thresholded_relu", {"X": np.array([np.nan, -np.inf, np.inf, 0.5], f32)}, {})
add(
    "softshrink-nan",
    "softshrink",
    {"X": np.array([np.nan, -np.inf, np.inf, 0.5], f32)},
    {"lambda": 0.5},
)
add("celu-nan", "celu", {"X": np.array([np.nan, -np.inf, np.inf, -0.0], f32)}, {"alpha": 1.5})
add("selu-nan", "selu", {"X": np.array([np.nan, -np.inf, np.inf, -0.0], f32)}, {})
add("stanh-nan", "stanh", {"X": np.array([np.nan, -np.inf, np.inf, -0.0], f32)}, {})
add("tanh_shrink-inf", "tanh_shrink", {"X": np.array([np.nan, -np.inf, np.inf, -0.0], f32)}, {})
add("pow-attr-nan", "pow", {"X": np.array([-8.0, 0.0, -0.0, np.nan], f32)}, {"factor": 0.5})
add("pow-int-frac", "pow", {"X": np.array([2, 3, 4], np.int32)}, {"factor": 1.5})
add("log-int-zero", "log", {"X": np.array([0, 1, -1], np.int64)}, {})
add("exp-int", "exp", {"X": np.array([0, 1, 50], np.int32)}, {})
add("abs-intmin", "abs", {"X": np.array([-(2**31), 5], np.int32)}, {})
add("square-int-overflow", "square", {"X": np.array([2**16, 3], np.int32)}, {})
add("round-half", "round", {"X": np.array([0.5, -0.5, 1.5, 2.5, -2.5, np.nan], f32)}, {})
add("reciprocal-zero", "reciprocal", {"X": np.array([0.0, -0.0, np.inf], f32)}, {})
add("logsigmoid-big", "logsigmoid", {"X": np.array([-100.0, 100.0, -10000.0], f32)}, {})
add("softplus-thr", "softplus", {"X": np.array([19.9, 20.1, -100.0, 30.0], f32)}, {})
add("gelu-big", "gelu", {"X": np.array([-10.0, 10.0, -40.0], f32)}, {"approximate": True})
add("sigmoid-big", "sigmoid", {"X": np.array([-100.0, 100.0, -10000.0, 88.8], f32)}, {})
add("atanh-edge", "atanh", {"X": np.array([1.0, -1.0, 2.0], f32)}, {})
add("acosh-edge", "acosh", {"X": np.array([1.0, 0.5, np.inf], f32)}, {})
add("tan-c64", "tan", {"X": np.array([1 + 1j, 40 + 2j], np.complex64)}, {})
add("silu-c", "silu", {"X": np.array([1 + 1j, -40 + 2j], np.complex64)}, {})
add("sigmoid-c", "sigmoid", {"X": np.array([1 + 1j, -40 + 2j], np.complex64)}, {})
add("softsign-c", "softsign", {"X": np.array([1 + 1j, -4 + 2j], np.complex64)}, {})
add("stanh-c", "stanh", {"X": np.array([1 + 1j, -4 + 2j], np.complex64)}, {})
add("logsigmoid-c", "logsigmoid", {"X": np.array([1 + 1j, -4 + 2j], np.complex64)}, {})
add("softplus-c", "softplus", {"X": np.array([1 + 1j, -4 + 2j], np.complex64)}, {})
add("hard_swish-c", "hard_swish", {"X": np.array([1 + 1j, -4 + 2j], np.complex64)}, {})
add("expm1-f16", "expm1", {"X": np.array([0.001, -5, 10, 11.1], np.float16)}, {})
add("exp-f16-ovf", "exp", {"X": np.array([11.1, 12, -20], np.float16)}, {})
add("log1p-bf16", "log1p", {"X": np.array([0.001, -0.5, 1000.0, -1], BF)}, {})


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_edges(case):
    check("test_edges", case)
