"""The fluid kernels of conv2d and pool2d against their phi kernels and Paddle's outputs, and
the legacy ops of the vision models (conv2d, depthwise_conv2d, pool2d, batch_norm,
flatten_contiguous_range, hard_swish, log_softmax, dropout) run end to end through RunImpl."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import phi.kernels  # noqa: F401 - registers the phi kernels compared with
from fluid_compat.imperative import run_op_with_operator
from fluid_compat.operators.context import ExecutionContext
from fluid_compat.operators.fluid_kernels.registry import fluid_kernels_of
from phi.backends import get_context
from phi.common import CPUPlace, DataType, IntArray
from phi.core.errors import InvalidArgument
from phi.core.tensor import DenseTensor
from phi.kernels.conv import conv2d as phi_conv2d
from phi.kernels.pool import pool2d as phi_pool2d
from tests.fluid_compat.operators.corpus_cases import (
    case_attrs,
    case_inputs,
    case_names,
    case_outputs,
)
from tests.phi.kernels.test_nn_support import load_case as load_nn_case


def load_case(name: str):
    """(case, arrays) from the corpus, or from tests/phi/kernels/data_nn without it."""
    case, arrays, _ = load_nn_case(name)
    return case, arrays

CPU = CPUPlace()
CTX = get_context(CPU)
RNG = np.random.default_rng(5)


def run_fluid(op_type: str, inputs: dict, attrs: dict, out_slot: str) -> np.ndarray:
    """Run the CPU fluid kernel of ``op_type`` for the inputs' dtype on a bare op."""
    op = SimpleNamespace(type=op_type, attrs=attrs, inputs={s: (s,) for s in inputs},
                         outputs={out_slot: ("out",)})
    dtype = DataType.from_numpy(next(iter(inputs.values())).dtype)
    kernel = next(k for kt, k in fluid_kernels_of(op_type).items()
                  if kt.dtype == dtype and kt.place == CPU)
    ctx = ExecutionContext(op, {s: [DenseTensor.from_numpy(v)] for s, v in inputs.items()}, CPU,
                           CTX)
    kernel.compute(ctx)
    return ctx.staged[out_slot][0].numpy()


def test_registered_for_cpu_float32_and_float64():
    for op_type in ("conv2d", "pool2d"):
        dtypes = {str(kt.dtype) for kt in fluid_kernels_of(op_type) if kt.place == CPU}
        assert dtypes == {"float32", "float64"}, op_type


# -- conv2d ------------------------------------------------------------------------------------

CONV = {
    "plain": {},
    "stride_pad": {"strides": [2, 2], "paddings": [1, 1]},
    "asym": {"paddings": [0, 2, 1, 0], "strides": [1, 2]},
    "dilation": {"dilations": [2, 1], "paddings": [2, 1]},
    "groups2": {"groups": 2, "paddings": [1, 1]},
    "depthwise": {"groups": 4, "strides": [2, 2], "paddings": [1, 1]},
    "same": {"padding_algorithm": "SAME", "strides": [2, 2], "dilations": [2, 2]},
    "valid": {"padding_algorithm": "VALID", "paddings": [3, 3]},
    "nhwc": {"data_format": "NHWC", "groups": 2, "paddings": [1, 0, 0, 1]},
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(CONV))
def test_conv2d_fluid_equals_phi(name, dtype):
    attrs = {"strides": [1, 1], "paddings": [0, 0], "padding_algorithm": "EXPLICIT",
             "dilations": [1, 1], "groups": 1, "data_format": "NCHW"}
    attrs.update(CONV[name])
    g = attrs["groups"]
    x = RNG.standard_normal((2, 4, 7, 6)).astype(dtype)
    if attrs["data_format"] == "NHWC":
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    w = RNG.standard_normal((4 if g == 4 else 6, 4 // g, 3, 3)).astype(dtype)
    fluid = run_fluid("conv2d", {"Input": x, "Filter": w}, attrs, "Output")
    phi = phi_conv2d(CTX, x, w, attrs["strides"], attrs["paddings"],
                     attrs["padding_algorithm"], attrs["dilations"], g, attrs["data_format"])
    assert fluid.shape == phi.shape and fluid.dtype == phi.dtype
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(fluid, phi, rtol=tol, atol=tol)


def test_conv2d_fluid_rejects_mismatched_groups():
    x = np.zeros((1, 4, 5, 5), np.float32)
    w = np.zeros((6, 3, 3, 3), np.float32)
    attrs = {"strides": [1, 1], "paddings": [0, 0], "padding_algorithm": "EXPLICIT",
             "dilations": [1, 1], "groups": 1, "data_format": "NCHW"}
    with pytest.raises(InvalidArgument, match="groups"):
        run_fluid("conv2d", {"Input": x, "Filter": w}, attrs, "Output")


# -- pool2d ------------------------------------------------------------------------------------

POOL = {
    "k3s2p1": {"ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1]},
    "asym_ceil": {"ksize": [3, 3], "strides": [2, 2], "paddings": [1, 0, 2, 1], "ceil_mode": True},
    "ceil_pad": {"ksize": [2, 2], "strides": [2, 2], "paddings": [1, 1], "ceil_mode": True},
    "same": {"ksize": [3, 2], "strides": [2, 3], "padding_algorithm": "SAME"},
    "valid": {"ksize": [3, 3], "strides": [2, 2], "paddings": [4, 4], "padding_algorithm": "VALID"},
    "global": {"ksize": [2, 2], "global_pooling": True, "paddings": [1, 1]},
    "adaptive": {"ksize": [3, 4], "adaptive": True},
    "adaptive_even": {"ksize": [7, 3], "adaptive": True},
    "nhwc": {"ksize": [3, 3], "paddings": [1, 1], "data_format": "NHWC"},
}


@pytest.mark.parametrize("kind, exclusive", [("max", True), ("avg", True), ("avg", False)])
@pytest.mark.parametrize("name", sorted(POOL))
def test_pool2d_fluid_equals_phi(name, kind, exclusive):
    attrs = {"strides": [1, 1], "paddings": [0, 0], "ceil_mode": False,
             "exclusive": exclusive, "data_format": "NCHW", "pooling_type": kind,
             "global_pooling": False, "adaptive": False, "padding_algorithm": "EXPLICIT"}
    attrs.update(POOL[name])
    x = RNG.standard_normal((2, 3, 7, 6)).astype(np.float32)
    if attrs["data_format"] == "NHWC":
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    fluid = run_fluid("pool2d", {"X": x}, attrs, "Out")
    phi = phi_pool2d(CTX, x, IntArray(attrs["ksize"]), attrs["strides"], attrs["paddings"],
                     attrs["ceil_mode"], exclusive, attrs["data_format"], kind,
                     attrs["global_pooling"], attrs["adaptive"], attrs["padding_algorithm"])
    assert fluid.shape == phi.shape and fluid.dtype == phi.dtype
    np.testing.assert_allclose(fluid, phi, rtol=1e-6, atol=1e-6)


# -- Paddle's recorded cases -------------------------------------------------------------------

VISION_OPS = frozenset(["conv2d", "depthwise_conv2d", "pool2d", "batch_norm",
                        "flatten_contiguous_range", "hard_swish", "log_softmax", "dropout"])
CASES = case_names(VISION_OPS)


@pytest.mark.parametrize("name", [n for n in CASES if n.startswith(("conv2d", "pool2d"))]
                         or ["conv2d_pad1", "pool2d_avg_inclusive_pad"])
def test_fluid_kernels_match_paddle(name):
    case, arrays = load_case(name)
    inputs = {slot: arrs[0] for slot, arrs in case_inputs(case, arrays).items()}
    slot = "Output" if case["op_type"] == "conv2d" else "Out"
    got = run_fluid(case["op_type"], inputs, case_attrs(case), slot)
    ((ref, tol),) = case_outputs(case, arrays)[slot]
    assert got.shape == ref.shape and got.dtype == ref.dtype
    np.testing.assert_allclose(got, ref, rtol=tol.get("rtol", 1e-5), atol=tol.get("atol", 1e-6))


@pytest.mark.parametrize("name", CASES or ["conv2d_pad1", "depthwise_conv2d",
                                            "pool2d_avg_inclusive_pad", "batch_norm_test_nhwc"])
def test_legacy_op_runs_the_phi_kernel_paddle_ran(name):
    case, arrays = load_case(name)
    result, op = run_op_with_operator(case["op_type"], case_inputs(case, arrays),
                                      case_attrs(case))
    for slot, items in case_outputs(case, arrays).items():
        for got, (ref, tol) in zip(result[slot], items, strict=False):
            assert got.shape == ref.shape and got.dtype == ref.dtype, slot
            np.testing.assert_allclose(got, ref, rtol=tol.get("rtol", 1e-5),
                                       atol=tol.get("atol", 1e-6), err_msg=f"{name}.{slot}")
    (choice,) = op.kernel_choices().values()
    trace = case["kernel_trace"]
    assert str(choice.expected) == trace["expected_kernel_key"]
    assert choice.is_phi and str(choice.phi_kernel.key) == trace["phi_kernel_key"]
    if case["op_type"] == "flatten_contiguous_range" and "XShape" not in op.outputs:
        # run_op made no XShape variable (an extra output): Paddle then runs flatten_infer
        assert choice.signature.name == "flatten_infer"
    else:
        assert str(choice.signature) == trace["kernel_signature"]["raw"]


# -- the corpus models, op by op ---------------------------------------------------------------

MODELS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "models"


@pytest.mark.parametrize("model", ["lenet", "jit_convnet"])
def test_corpus_model_op_by_op_matches_paddle(model):
    """Every op of the saved program through RunImpl, values kept in a dict (no executor)."""
    from fluid_compat.framework.program_desc import ProgramDesc
    from fluid_compat.framework.tensor_io import load_combined_params

    d = MODELS / model
    if not d.is_dir():
        pytest.skip(f"corpus model {model} not available")
    meta = json.loads((d / "meta.json").read_text())
    prog = ProgramDesc.parse_from_string((d / "inference.pdmodel").read_bytes())
    values = {k: v[0] for k, v in load_combined_params(str(d / "inference.pdiparams"),
                                                       prog).items()}
    for feed in meta["feeds"]:
        values[feed["name"]] = np.load(d / feed["file"])
    fetched = []
    for op in prog.block(0).ops:
        if op.type == "feed":
            continue
        if op.type == "fetch":
            fetched.append(op.input("X")[0])
            continue
        inputs = {s: [values[n] for n in names] for s, names in op.inputs.items() if names}
        attrs = {k: getattr(v, "value", v) for k, v in op.attrs.items()}
        result, _ = run_op_with_operator(op.type, inputs, attrs)
        for slot, names in op.outputs.items():
            values.update(zip(names, result.get(slot, []), strict=False))  # XShape: none
    assert fetched
    for i, name in enumerate(fetched):
        np.testing.assert_allclose(values[name], np.load(d / f"output_{i}.npy"), rtol=1e-4,
                                   atol=1e-4)
