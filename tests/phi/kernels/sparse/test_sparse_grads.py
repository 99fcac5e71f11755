"""Sparse grad kernels against Paddle 2.6.2's autograd (tools/fixtures/gen_sparse_cases.py
``grads``: dygraph backward of each forward, the upstream gradient given on the output's
values): x_grad's points and values, and the dense inputs' gradients."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from phi.backends import get_context
from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.sparse_tensor import sparse_coo_tensor
from phi.core.tensor import CPU_PLACE
from phi.kernels.sparse import (
    batch_norm,
    conv,
    elementwise,
    manipulation,
    pool,
    softmax,
    unary,
)
from phi.kernels.sparse.unary import UNARY_GRADS, with_values

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "sparse"
META = json.loads((FIXTURES / "grads.json").read_text())["cases"]
DATA = np.load(FIXTURES / "grads.npz")
CTX = get_context(CPU_PLACE)


def _input(name, k):
    return sparse_coo_tensor(DATA[f"{name}/in{k}/indices"], DATA[f"{name}/in{k}/values"],
                             META[name]["shapes"][k])


def _grads(name, x, out):
    """(kernel outputs to compare: sparse grads, dense grads) of one case."""
    og = with_values(out, DATA[f"{name}/out_grad"].reshape(out.values.shape))
    op = name.rsplit("_", 1)[0] if name.endswith("_coo") else name
    attrs = META[name]["attrs"]
    if op in UNARY_GRADS:
        takes = UNARY_GRADS[op][0]
        return [getattr(unary, f"{op}_coo_grad")(CTX, x if takes == "x" else out, og)], []
    if op == "leaky_relu":
        return [unary.leaky_relu_coo_grad(CTX, x, og, attrs["alpha"])], []
    if op == "pow":
        return [unary.pow_coo_grad(CTX, x, og, attrs["factor"])], []
    if op == "softmax":
        return [softmax.softmax_coo_grad(CTX, out, og, -1)], []
    if op == "transpose":
        return [manipulation.transpose_coo_grad(CTX, x, og, attrs["perm"])], []
    if op == "reshape":
        return [manipulation.reshape_coo_grad(CTX, x, og)], []
    if op == "slice":
        return [manipulation.slice_coo_grad(CTX, x, og, *_slice_args(attrs))], []
    raise AssertionError(name)


def _slice_args(attrs):
    return IntArray(attrs["axes"]), IntArray(attrs["starts"]), IntArray(attrs["ends"])


_FORWARD = {
    "slice": lambda x, a: manipulation.slice_coo(CTX, x, *_slice_args(a)),
    "leaky_relu": lambda x, a: unary.leaky_relu_coo(CTX, x, a["alpha"]),
    "pow": lambda x, a: unary.pow_coo(CTX, x, a["factor"]),
    "softmax": lambda x, a: softmax.softmax_coo(CTX, x, -1),
    "transpose": lambda x, a: manipulation.transpose_coo(CTX, x, a["perm"]),
    "reshape": lambda x, a: manipulation.reshape_coo(CTX, x, IntArray(a["shape"])),
}

UNARY_CASES = sorted(n for n in META if n.endswith("_coo") and n.count("_coo") == 1
                     and not n.endswith("_coo_coo"))


def _assert_sparse(got, name, k, tol=1e-5):
    np.testing.assert_array_equal(got.indices, DATA[f"{name}/grad{k}/indices"])
    np.testing.assert_allclose(got.values, DATA[f"{name}/grad{k}/values"], rtol=tol, atol=tol)


@pytest.mark.parametrize("name", UNARY_CASES)
def test_unary_and_shape_grads(name):
    x = _input(name, 0)
    op = name.rsplit("_", 1)[0]
    fwd = _FORWARD.get(op) or (lambda t, a: getattr(unary, f"{op}_coo")(CTX, t))
    out = fwd(x, META[name]["attrs"])
    (dx,), _ = _grads(name, x, out)
    _assert_sparse(dx, name, 0)


@pytest.mark.parametrize("op", ["add", "subtract", "multiply"])
def test_elementwise_grads(op):
    name = f"{op}_coo_coo"
    x, y = _input(name, 0), _input(name, 1)
    out = elementwise.elementwise_coo(op, x, y)
    og = with_values(out, DATA[f"{name}/out_grad"])
    dx, dy = getattr(elementwise, f"{op}_coo_coo_grad")(CTX, x, y, og)
    _assert_sparse(dx, name, 0)
    _assert_sparse(dy, name, 1)


@pytest.mark.parametrize("name", ["conv3d_subm", "conv3d_stride2"])
def test_conv3d_grad(name):
    x, w = _input(name, 0), DATA[f"{name}/dense0"]
    a = META[name]["attrs"]
    args = (a["paddings"], [1, 1, 1], a["strides"], 1, a["subm"], "")
    out, rulebook, counter = conv.conv3d_coo(CTX, x, w, *args)
    og = with_values(out, DATA[f"{name}/out_grad"])
    dx, dw = conv.conv3d_coo_grad(CTX, x, w, out, rulebook, counter, og, *args)
    _assert_sparse(dx, name, 0)
    np.testing.assert_allclose(dw, DATA[f"{name}/dense_grad0"], rtol=1e-5, atol=1e-5)


def test_maxpool_grad():
    name = "maxpool"
    x = _input(name, 0)
    args = ([2, 2, 2], [0, 0, 0], [1, 1, 1], [1, 1, 1])
    out, rulebook, counter = pool.maxpool_coo(CTX, x, *args)
    og = with_values(out, DATA[f"{name}/out_grad"])
    _assert_sparse(pool.maxpool_coo_grad(CTX, x, rulebook, counter, out, og, [2, 2, 2]),
                   name, 0)


def test_batch_norm_grad():
    name = "batch_norm_train"
    x = _input(name, 0)
    w, b = DATA[f"{name}/dense0"], DATA[f"{name}/dense1"]
    c = w.shape[0]
    mean, var = np.zeros(c, "float32"), np.ones(c, "float32")
    out, mean_out, var_out, saved_mean, saved_var, reserve = batch_norm.batch_norm_coo(
        CTX, x, mean, var, w, b, False, 0.9, 1e-5, "NHWC", False, False)
    og = with_values(out, DATA[f"{name}/out_grad"])
    dx, dw, db = batch_norm.batch_norm_coo_grad(
        CTX, x, w, b, mean_out, var_out, saved_mean, saved_var, reserve, og, 0.9, 1e-5,
        "NHWC", False, False, False)
    _assert_sparse(dx, name, 0, tol=1e-4)
    np.testing.assert_allclose(dw, DATA[f"{name}/dense_grad0"], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(db, DATA[f"{name}/dense_grad1"], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["sum_coo_axis1", "sum_coo_all"])
def test_sum_grad(name):
    x = _input(name, 0)
    a = META[name]["attrs"]
    out = manipulation.sum_coo(CTX, x, IntArray(a["axis"]), DataType.UNDEFINED, a["keepdim"])
    og = with_values(out, DATA[f"{name}/out_grad"].reshape(out.values.shape))
    dx = manipulation.sum_coo_grad(CTX, x, og, IntArray(a["axis"]), a["keepdim"])
    _assert_sparse(dx, name, 0)
