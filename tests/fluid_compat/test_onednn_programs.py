"""Programs that Paddle Inference's oneDNN passes optimised, and the oneDNN-only ops alone.

tests/fixtures/onednn/<model>/ (tools/fixtures/gen_onednn_models.py): small static models
saved, then optimised by Paddle 2.6.2's AnalysisPredictor with ``enable_mkldnn()`` and saved by
``enable_save_optim_model`` (int8 ones with ``enable_mkldnn_int8()``, a bfloat16 one with
``enable_mkldnn_bfloat16()``); the fixture is that optimised program, unchanged (fused_conv2d,
fused_matmul, fused_elementwise_*, fused_softplus, fused_transpose, quantize / dequantize),
with the predictor's outputs.  Each runs
through load_inference_model + Executor and matches them; every fused op runs the phi ONEDNN
kernel with the KernelSignature and kernel key Paddle's executor recorded for it.

tests/fixtures/onednn/single_ops/ (``gen_onednn_models.py --single-ops``): each fused op in a
one-op program with ``use_mkldnn`` set as Paddle's passes set it.  Paddle prints its expected
kernel key before the use_mkldnn hint (PLAIN) and the final key after it (MKLDNN); the bridge's
KernelChoice keeps the key after the hints, which is compared with Paddle's final key.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import Executor, load_inference_model
from fluid_compat.framework.scope import Scope
from fluid_compat.imperative import run_op_with_operator
from phi.common.backend import Backend
from phi.core.errors import PhiError
from tests.fluid_compat.operators.corpus_cases import case_attrs, case_inputs, case_outputs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "onednn"
SINGLE = FIXTURES / "single_ops"
MODELS = sorted(p.name for p in FIXTURES.iterdir() if (p / "meta.json").is_file())
CASES = sorted(p.stem for p in SINGLE.glob("*.json") if p.name != "index.json")
ONEDNN_OPS = {"fused_conv2d", "fused_conv3d", "fused_matmul", "fused_elementwise_add",
              "fused_elementwise_sub", "fused_elementwise_mul", "fused_elementwise_div",
              "fused_softplus", "fused_transpose", "dequantize"}


def _meta(model: str) -> dict:
    return json.loads((FIXTURES / model / "meta.json").read_text())


def test_fixture_set():
    assert set(MODELS) == {"conv_bias_act", "conv3d_bias_relu", "attention", "elementwise_act",
                           "softplus_act", "int8_conv_chain", "int8_matmul", "bf16_mixed"}
    in_models = {t for m in MODELS for t in _meta(m)["op_types"]}
    assert ONEDNN_OPS - {"fused_conv3d", "fused_elementwise_div"} <= in_models
    assert ONEDNN_OPS - {"dequantize"} <= {
        json.loads((SINGLE / f"{c}.json").read_text())["op_type"] for c in CASES}
    for model in MODELS:
        size = sum(f.stat().st_size for f in (FIXTURES / model).iterdir())
        assert size < 200 * 1024, f"{model}: {size} bytes"
    size = sum(f.stat().st_size for f in SINGLE.iterdir())
    assert size < 500 * 1024, f"single_ops: {size} bytes"


@pytest.mark.parametrize("model", MODELS)
def test_optimised_program_matches_the_predictor(model):
    meta = _meta(model)
    d = FIXTURES / model
    scope = Scope()
    program, feeds, fetches = load_inference_model(d / "inference", scope=scope)
    types = [op.type for op in program.block(0).ops]
    assert set(meta["expect_ops"]) <= set(types), types  # the passes' fused ops are there
    feed = {f["name"]: np.load(d / f["file"]) for f in meta["feeds"]}
    exe = Executor()
    outs = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    assert len(outs) == len(meta["fetches"])
    for got, f in zip(outs, meta["fetches"], strict=True):
        ref = np.load(d / f["file"])
        got = np.asarray(got)
        assert got.shape == ref.shape and got.dtype == ref.dtype, f["name"]
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5, err_msg=f"{model} {f['name']}")
    # the fused ops: the phi ONEDNN kernel, with the signature and key Paddle recorded
    recorded = {}
    for rec in meta["kernel_trace"]:
        if rec["op_type"] in ONEDNN_OPS and rec.get("kernel_signature"):
            recorded.setdefault(rec["op_type"], set()).add(
                (rec["kernel_signature"]["raw"], rec["phi_kernel_key"], rec["final_kernel_key"]))
    checked = 0
    for op in exe._last_plan.ops:
        choice = getattr(op, "last_choice", None)
        if op.type not in ONEDNN_OPS or choice is None:
            continue
        checked += 1
        assert choice.is_phi and choice.phi_kernel.key.backend is Backend.ONEDNN
        mine = (str(choice.signature), str(choice.phi_kernel.key), str(choice.kernel_type))
        assert mine in recorded[op.type], (op.type, mine, recorded[op.type])
    assert checked == sum(t in ONEDNN_OPS for t in types)


def _load(name: str):
    case = json.loads((SINGLE / f"{name}.json").read_text())
    with np.load(SINGLE / f"{name}.npz") as z:
        arrays = {k: z[k] for k in z.files}
    return case, arrays


@pytest.mark.parametrize("name", CASES)
def test_single_op_case_matches_paddle(name):
    case, arrays = _load(name)
    inputs, attrs = case_inputs(case, arrays), case_attrs(case)
    assert attrs.get("use_mkldnn") is True
    if case["status"] == "run_error":
        with pytest.raises(PhiError):
            run_op_with_operator(case["op_type"], inputs, attrs)
        return
    tensors, op = run_op_with_operator(case["op_type"], inputs, attrs,
                                       extra_outputs=case["op_desc"]["outputs"], tensors=True)
    result = {slot: [t.numpy() for t in ts] for slot, ts in tensors.items()}
    want = case_outputs(case, arrays)
    assert want, name
    for slot, items in want.items():
        for got, (ref, tol) in zip(result[slot], items, strict=True):
            assert got.shape == ref.shape and got.dtype == ref.dtype, (name, slot)
            if np.issubdtype(ref.dtype, np.floating):
                # oneDNN's float32 kernels (vectorised exp / erf / tanh, fused FMA order) differ
                # from double-rounded results by a few ulp
                np.testing.assert_allclose(got, ref, rtol=max(tol.get("rtol", 0), 2e-5),
                                           atol=max(tol.get("atol", 0), 2e-6),
                                           err_msg=f"{name}.{slot}")
            else:
                np.testing.assert_array_equal(got, ref, err_msg=f"{name}.{slot}")
    trace = case["kernel_trace"]
    (choice,) = op.kernel_choices().values()
    assert choice.is_phi and trace["run_phi_kernel"]
    assert str(choice.signature) == trace["kernel_signature"]["raw"]
    assert str(choice.phi_kernel.key) == trace["phi_kernel_key"]
    assert str(choice.kernel_type) == trace["final_kernel_key"]


@pytest.mark.parametrize("act, alpha, beta, x, want", [
    # oneDNN eltwise formulas, worked by hand
    ("relu", 0.0, 0.0, [-2.0, 0.0, 3.0], [0.0, 0.0, 3.0]),
    ("leaky_relu", 0.1, 0.0, [-2.0, 3.0], [-0.2, 3.0]),
    ("relu6", 0.0, 6.0, [-1.0, 3.0, 7.0], [0.0, 3.0, 6.0]),
    ("hard_swish", 1.0 / 6.0, 0.5, [-4.0, 0.0, 1.0, 4.0], [0.0, 0.0, 2.0 / 3.0, 4.0]),
    ("hard_sigmoid", 0.2, 0.5, [-5.0, 0.0, 5.0], [0.0, 0.5, 1.0]),
    ("clip", -0.5, 0.75, [-1.0, 0.25, 1.0], [-0.5, 0.25, 0.75]),
    ("swish", 1.0, 0.0, [0.0, 2.0], [0.0, 2.0 / (1.0 + np.exp(-2.0))]),
])
def test_activation_post_ops(act, alpha, beta, x, want):
    from phi.kernels.funcs.onednn_post_ops import apply_activation

    got = apply_activation(np, np.asarray(x, np.float32), act, alpha, beta, "test")
    np.testing.assert_allclose(got, np.asarray(want, np.float32), rtol=1e-6, atol=1e-7)


def test_unknown_activation_and_inverted_clip_raise():
    from phi.core.errors import InvalidArgument
    from phi.kernels.funcs.onednn_post_ops import apply_activation

    with pytest.raises(InvalidArgument, match="not found in oneDNN"):
        apply_activation(np, np.ones(2, np.float32), "elu", 0.0, 0.0, "fused_matmul")
    with pytest.raises(InvalidArgument, match="fuse_alpha <= fuse_beta"):
        apply_activation(np, np.ones(2, np.float32), "clip", 1.0, 0.0, "fused_conv2d")


def _run(op_type, inputs, attrs):
    """The op's outputs (slot -> arrays) with use_mkldnn set, as the passes leave it."""
    result, _ = run_op_with_operator(op_type, inputs, {"use_mkldnn": True, **attrs})
    return result


def test_fused_conv2d_residual_of_another_shape_raises():
    from phi.core.errors import InvalidArgument

    x = np.ones((1, 2, 4, 4), np.float32)
    w = np.ones((3, 2, 1, 1), np.float32)
    with pytest.raises(InvalidArgument, match="residual"):
        _run("fused_conv2d", {"Input": [x], "Filter": [w],
                              "ResidualData": [np.ones((1, 3, 2, 2), np.float32)]},
             {"fuse_residual_connection": True})


def test_fused_conv2d_int8_hand_worked():
    # one 1x1 filter weight 0.5 quantized with Scale_weights 4 -> 2; Input 10 (Scale_in 2):
    # acc 20 * 1 / (2 * 4) = 2.5, + bias 0.5 = 3, relu, * Scale_out 3 = 9 -> uint8
    x = np.full((1, 1, 2, 2), 10, np.int8)
    w = np.full((1, 1, 1, 1), 0.5, np.float32)
    out = _run("fused_conv2d",
               {"Input": [x], "Filter": [w], "Bias": [np.array([0.5], np.float32)]},
               {"fuse_activation": "relu", "Scale_in": 2.0, "Scale_weights": [4.0],
                "Scale_out": 3.0, "mkldnn_data_type": "int8"})["Output"][0]
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out, np.full((1, 1, 2, 2), 9, np.uint8))


def test_fused_matmul_inner_dims_must_agree():
    from phi.core.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="do not multiply"):
        _run("fused_matmul", {"X": [np.ones((2, 3), np.float32)],
                              "Y": [np.ones((4, 2), np.float32)]}, {})


def test_fused_matmul_hand_worked():
    # [[1, 2]] @ [[3], [4]] = 11; * matmul_alpha 0.5 = 5.5; + residual -6 = -0.5;
    # leaky_relu 0.1 -> -0.05; * fused_output_scale 2 -> -0.1
    out = _run("fused_matmul", {"X": [np.array([[1.0, 2.0]], np.float32)],
                                "Y": [np.array([[3.0], [4.0]], np.float32)],
                                "ResidualData": [np.array([[-6.0]], np.float32)]},
               {"matmul_alpha": 0.5, "fuse_activation": "leaky_relu", "fuse_alpha": 0.1,
                "fused_output_scale": 2.0})["Out"][0]
    np.testing.assert_allclose(out, [[-0.1]], rtol=1e-6)
