"""gradnn's grad kernels against independent truth: hand-worked tie and scale rules, and the
adjoint identity <forward(x), g> == <x, grad(g)> of the linear ops (float64), computed
through the bridge's own forward ops (which the Paddle-made cases check)."""

from __future__ import annotations

import numpy as np
import pytest

import opmakers
from fluid_compat.imperative import run_op as _run_op
from opmakers.grad import grad_op_proto


def run_op(op, inputs, attrs):
    """run_op; a grad op gets its forward op's attributes with their defaults, as the grad
    op makers copy them."""
    if op.endswith("_grad"):
        fwd = opmakers.get_op_proto(op[:-5])
        attrs = {**{a.name: a.default for a in fwd.attrs if not a.required}, **attrs}
    return _run_op(op, inputs, attrs)


def _grad(op, inputs, attrs, slot="X@GRAD"):
    return run_op(op, inputs, attrs)[slot][0]


def test_max_pool_grad_goes_to_the_first_maximum_of_each_window():
    x = np.ones((1, 1, 2, 3))
    out = np.ones((1, 1, 1, 2))
    dout = np.array([[[[2.0, 5.0]]]])
    attrs = {"ksize": [2, 2], "strides": [1, 1], "pooling_type": "max"}
    dx = _grad("pool2d_grad", {"X": x, "Out": out, "Out@GRAD": dout}, attrs)
    # window 0 covers columns 0-1, window 1 columns 1-2: each gives all to its first element
    np.testing.assert_array_equal(dx, [[[[2.0, 5.0, 0.0], [0.0, 0.0, 0.0]]]])


def test_avg_pool_grad_float64_uses_a_float_scale():
    x = np.zeros((1, 1, 1, 3))
    attrs = {"ksize": [1, 3], "strides": [1, 1], "pooling_type": "avg"}
    dx = _grad("pool2d_grad", {"X": x, "Out": np.zeros((1, 1, 1, 1)),
                               "Out@GRAD": np.ones((1, 1, 1, 1))}, attrs)
    third = float(np.float32(1) / np.float32(3))  # 1.0f / 3, not 1.0 / 3
    np.testing.assert_array_equal(dx, np.full((1, 1, 1, 3), third))


def test_with_index_grad_adds_at_the_mask():
    x = np.zeros((1, 1, 2, 2))
    mask = np.array([[[[3, 3]]]], dtype=np.int32)
    dout = np.array([[[[1.5, 2.0]]]])
    dx = _grad("max_pool2d_with_index_grad", {"X": x, "Mask": mask, "Out@GRAD": dout},
               {"ksize": [1, 1], "strides": [1, 1], "paddings": [0, 0]})
    np.testing.assert_array_equal(dx.reshape(-1), [0, 0, 0, 3.5])


def _adjoint(op, fwd_inputs, attrs, slot, out_slot, grad_op):
    """<op(x), g> == <x, grad(g)> for an op linear in input ``slot``."""
    rng = np.random.default_rng(0)
    out = run_op(op, fwd_inputs, attrs)[out_slot][0]
    g = rng.standard_normal(out.shape)
    slots = {v.name for v in grad_op_proto(grad_op).inputs}
    ginputs = {k: v for k, v in fwd_inputs.items() if k in slots}
    dx = run_op(grad_op, {**ginputs, f"{out_slot}@GRAD": g}, attrs)[f"{slot}@GRAD"][0]
    assert dx.shape == fwd_inputs[slot].shape
    np.testing.assert_allclose(np.sum(out * g), np.sum(fwd_inputs[slot] * dx), rtol=1e-10)


@pytest.mark.parametrize("attrs", [
    {"strides": [2, 1], "paddings": [1, 0, 2, 1], "dilations": [1, 2], "groups": 2},
    {"strides": [1, 1], "padding_algorithm": "SAME", "data_format": "NHWC"},
])
def test_conv2d_grad_is_the_adjoint_in_input_and_filter(attrs):
    rng = np.random.default_rng(1)
    nhwc = attrs.get("data_format") == "NHWC"
    x = rng.standard_normal((2, 5, 6, 4) if nhwc else (2, 4, 5, 6))
    w = rng.standard_normal((6, 4 // attrs.get("groups", 1), 3, 2))
    for slot in ("Input", "Filter"):
        _adjoint("conv2d", {"Input": x, "Filter": w}, attrs, slot, "Output", "conv2d_grad")


def test_conv2d_transpose_grad_is_the_adjoint():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 4, 3, 4))
    w = rng.standard_normal((4, 3, 3, 3))
    attrs = {"strides": [2, 2], "paddings": [1, 0], "output_padding": [1, 1], "groups": 2,
             "dilations": [1, 1]}
    for slot in ("Input", "Filter"):
        _adjoint("conv2d_transpose", {"Input": x, "Filter": w}, attrs, slot, "Output",
                 "conv2d_transpose_grad")


@pytest.mark.parametrize(("op", "shape", "attrs"), [
    ("bilinear_interp_v2", (1, 2, 3, 4), {"out_h": 5, "out_w": 7, "align_corners": False,
                                          "align_mode": 0, "interp_method": "bilinear"}),
    ("bicubic_interp_v2", (1, 1, 4, 4), {"out_h": 6, "out_w": 3, "align_corners": True,
                                         "interp_method": "bicubic"}),
    ("nearest_interp_v2", (2, 1, 3, 3), {"out_h": 7, "out_w": 2, "interp_method": "nearest"}),
])
def test_interp_grad_is_the_adjoint(op, shape, attrs):
    x = np.random.default_rng(3).standard_normal(shape)
    _adjoint(op, {"X": x}, attrs, "X", "Out", f"{op}_grad")


@pytest.mark.parametrize(("op", "attrs"), [
    ("pad3d", {"paddings": [1, 2, 0, 1, 2, 0], "mode": "reflect"}),
    ("pad3d", {"paddings": [1, 0, 1, 1, 0, 2], "mode": "circular"}),
    ("pixel_shuffle", {"upscale_factor": 2}),
    ("temporal_shift", {"seg_num": 2, "shift_ratio": 0.25}),
])
def test_moving_ops_grad_is_the_adjoint(op, attrs):
    shape = {"pad3d": (1, 2, 3, 4, 3), "pixel_shuffle": (1, 8, 2, 3),
             "temporal_shift": (4, 4, 2, 2)}[op]
    x = np.random.default_rng(4).standard_normal(shape)
    _adjoint(op, {"X": x}, attrs, "X", "Out", f"{op}_grad")


def test_batch_norm_training_grad_of_a_constant_channel_is_zero():
    # y = gamma * (x - mean) / std + beta: a shift of x within a channel does not change y,
    # so dx sums to 0 per channel; dbias = sum(dy)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 3))
    dy = rng.standard_normal((4, 3))
    mean = x.mean(axis=0)
    inv = 1 / np.sqrt(x.var(axis=0) + 1e-5)
    res = run_op("batch_norm_grad", {"X": x, "Scale": np.ones(3), "Bias": np.zeros(3),
                                     "SavedMean": mean, "SavedVariance": inv, "Y@GRAD": dy},
                 {"epsilon": 1e-5, "is_test": False, "data_layout": "NCHW"})
    np.testing.assert_allclose(res["X@GRAD"][0].sum(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(res["Bias@GRAD"][0], dy.sum(axis=0))
    np.testing.assert_allclose(res["Scale@GRAD"][0], (dy * (x - mean) * inv).sum(axis=0))
