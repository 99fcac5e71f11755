"""Reading the corpus single-op cases (Paddle 2.6.2's OpDescs, inputs and outputs)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tests.corpus_paths import CORPUS

REPO = Path(__file__).resolve().parents[3]
SINGLE_OPS = CORPUS / "single_ops"
HAVE_CORPUS = SINGLE_OPS.is_dir()
LOCAL = Path(__file__).resolve().parent / "data"
#: single-op cases made by tools/fixtures with the real Paddle 2.6.2 (committed, always present)
FIXTURES = REPO / "tests" / "fixtures" / "single_ops"
# gen_single_ops.py calls paddle.seed(GENERATOR_SEED) before every case; the bridge's stand-in
# for Paddle's process-wide generator is FLAGS_random_op_seed (phi/kernels/funcs/cpu_random.py)
GENERATOR_SEED = 20240607

# the first legacy ops (feed and fetch run inside programs, not alone)
ISSUE3_OPS = frozenset({
    "scale", "elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div",
    "elementwise_max", "elementwise_min", "elementwise_pow", "matmul", "matmul_v2", "mul",
    "relu", "sigmoid", "tanh", "exp", "softmax", "cast", "fill_constant", "reshape2",
    "transpose2", "concat", "split", "reduce_mean", "reduce_sum", "assign", "lookup_table",
    "flatten2", "fill_any_like",
})

# the second set of legacy ops (grown op by op)
ISSUE5_OPS = frozenset({
    "less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not", "increment", "relu6",
    "leaky_relu", "elu", "hard_sigmoid", "swish", "silu", "mish", "gelu",
    "sqrt", "rsqrt", "abs", "log", "floor", "ceil", "round", "sign", "erf",
    "prelu", "pow", "clip", "where", "cumsum", "arg_max", "arg_min", "top_k_v2", "argsort",
    "gather", "gather_nd", "index_select", "lookup_table_v2", "squeeze2", "unsqueeze2",
    "stack", "unstack", "slice", "strided_slice", "expand_v2", "expand_as_v2", "tile",
    "one_hot_v2", "shape", "size", "sum", "reduce_max", "reduce_min", "reduce_prod",
    "reduce_all", "reduce_any", "isnan_v2", "isinf_v2", "isfinite_v2", "p_norm", "tril_triu",
    "layer_norm", "instance_norm", "group_norm", "assign_value", "pixel_shuffle", "pad3d",
    "conv2d_transpose", "bilinear_interp_v2", "nearest_interp_v2", "range", "linspace",
    "unique", "shuffle_channel", "fill_zeros_like", "nearest_interp", "bilinear_interp",
    "top_k",
})


def fixture_op_types() -> frozenset[str]:
    """Every op type with a committed tools/fixtures case (each of them must run)."""
    return frozenset(json.loads(p.read_text())["op_type"] for p in FIXTURES.glob("*.json")
                     if p.name != "index.json")


def case_names(ops=ISSUE3_OPS, *, status: str | None = "ok") -> list[str]:
    """Names of the corpus cases (when the corpus is present) and fixture cases of ``ops``."""
    out = []
    for base in (SINGLE_OPS, FIXTURES):
        if not base.is_dir():
            continue
        for p in sorted(base.glob("*.json")):
            if p.name == "index.json" or p.stem in out:
                continue
            c = json.loads(p.read_text())
            if c["op_type"] in ops and (status is None or c["status"] == status):
                out.append(p.stem)
    return out


def load_case(name: str) -> tuple[dict, dict[str, np.ndarray]]:
    for base in (SINGLE_OPS, FIXTURES, LOCAL):
        p = base / f"{name}.json"
        if p.is_file():
            case = json.loads(p.read_text())
            with np.load(base / f"{name}.npz") as z:
                arrays = {k: z[k] for k in z.files}
            return case, arrays
    pytest.skip(f"case {name} not available (no corpus at {CORPUS})")


def case_attrs(case: dict) -> dict:
    """The OpDesc's attributes as a legacy program carries them (values only)."""
    attrs = {}
    for name, a in case["op_desc"]["attrs"].items():
        if a.get("value_omitted"):
            continue
        value = a["value"]
        if a.get("type") in ("SCALAR", "SCALARS"):  # fixtures write each Scalar as {type, value}
            value = ([v["value"] if isinstance(v, dict) else v for v in value]
                     if isinstance(value, list) else value["value"])
        attrs[name] = value
    return attrs


def _bf16_view(a: np.ndarray) -> np.ndarray:
    if a.dtype == np.uint16:
        import ml_dtypes

        return a.view(ml_dtypes.bfloat16)
    return a


def _with_lod(a: np.ndarray, lod):
    """An input Paddle got as a LoDTensor: a DenseTensor carrying the same offsets."""
    if not lod:
        return a
    from phi.core.tensor import DenseTensor

    t = DenseTensor.from_numpy(a)
    t.lod = tuple(tuple(level) for level in lod)
    return t


def _tensor_array(arrays: dict, item: dict):
    """A LoDTensorArray input: its recorded steps, each with its LoD."""
    from fluid_compat import lod_tensor_array

    return lod_tensor_array([(arrays[st["npz_key"]], st.get("lod") or [])
                             for st in item["steps"]])


def case_inputs(case: dict, arrays: dict) -> dict[str, list[np.ndarray]]:
    inputs: dict[str, list] = {}
    for slot, items in case["inputs"].items():
        # Paddle has no uint16 tensors: a uint16 feed is bfloat16 storage (paddle.static.data)
        inputs[slot] = [_tensor_array(arrays, i) if i.get("tensor_array") else
                        _with_lod(_bf16_view(arrays[i["npz_key"]]), i.get("lod"))
                        for i in items]
    return inputs


def case_outputs(case: dict, arrays: dict) -> dict[str, list[tuple[np.ndarray, dict]]]:
    outs: dict[str, list] = {}
    for slot, items in case["outputs"].items():
        for i in items:
            key = i.get("npz_key")
            if key and key in arrays:
                ref = arrays[key]
                # Paddle hands bfloat16 out as its uint16 storage (it has no uint16 tensors),
                # also where the compile-time dtype did not say BF16 (oneDNN quantize)
                ref = _bf16_view(ref)
                outs.setdefault(slot, []).append((ref, i.get("tolerance") or {}))
    return outs


def check_case(name: str, case: dict, arrays: dict, *, lod_not_yet=frozenset()) -> None:
    """Run one Paddle-made case through run_op and compare outputs, output LoDs and the
    kernel choice (expected kernel key, KernelSignature, phi kernel key) with Paddle's."""
    from fluid_compat.imperative import run_op_with_operator

    from phi import flags

    old_seed = flags.FLAGS["FLAGS_random_op_seed"]
    flags.set_flags({"FLAGS_random_op_seed": GENERATOR_SEED})
    try:
        tensors, op = run_op_with_operator(case["op_type"], case_inputs(case, arrays),
                                           case_attrs(case),
                                           extra_outputs=case["op_desc"]["outputs"],
                                           tensors=True)
    finally:
        flags.set_flags({"FLAGS_random_op_seed": old_seed})
    result = {slot: [t.numpy() for t in ts] for slot, ts in tensors.items()}
    for slot, items in case["outputs"].items():  # the LoD Paddle gave each output
        for i, item in enumerate(items):
            if item.get("npz_key") and slot in tensors and i < len(tensors[slot]):
                got = [list(level) for level in tensors[slot][i].lod]
                if (name, slot) in lod_not_yet:
                    assert got != (item.get("lod") or []), \
                        f"{name}.{slot} has Paddle's LoD now: drop it from lod_not_yet"
                    continue
                assert got == (item.get("lod") or []), f"{name}.{slot}[{i}] LoD"
    for slot, items in case["outputs"].items():  # values undefined: shape and dtype only
        for i, item in enumerate(items):
            meta = item.get("uncompared")
            if meta:
                got = result[slot][i]
                assert [list(got.shape), str(got.dtype)] == [meta["shape"], meta["dtype"]], \
                    f"{name}.{slot}[{i}]"
    want = case_outputs(case, arrays)
    # a case whose outputs Paddle left uninitialized (nop) records none: ours stay so too
    untouched = all(i.get("fetched") is False and not i.get("uncompared")
                    for items in case["outputs"].values() for i in items)
    if untouched:
        assert not result, f"{name}: Paddle writes no output, the bridge wrote {sorted(result)}"
    assert want or untouched or any(i.get("uncompared") for items in case["outputs"].values()
                                    for i in items), f"case {name} records no outputs"
    for slot, items in want.items():
        assert slot in result, f"{name}: output {slot} missing (got {sorted(result)})"
        assert len(result[slot]) == len(items)
        for got, (ref, tol) in zip(result[slot], items, strict=False):
            assert got.shape == ref.shape, f"{name}.{slot}: {got.shape} vs {ref.shape}"
            assert got.dtype == ref.dtype, f"{name}.{slot}: {got.dtype} vs {ref.dtype}"
            if np.issubdtype(ref.dtype, np.complexfloating):  # real and imaginary parts
                # cases made before the generator knew complex tolerances recorded 0: use the
                # tolerance of the component dtype at least
                least = (1e-5, 1e-6) if ref.dtype == np.complex64 else (1e-10, 1e-12)
                np.testing.assert_allclose(got.astype(np.complex128), ref.astype(np.complex128),
                                           rtol=max(tol.get("rtol", 0), least[0]),
                                           atol=max(tol.get("atol", 0), least[1]),
                                           err_msg=f"{name}.{slot}")
            elif np.issubdtype(ref.dtype, np.floating) or ref.dtype.name == "bfloat16":
                # (ml_dtypes' bfloat16 is no numpy floating subtype; NaN must equal NaN there)
                np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64),
                                           rtol=tol.get("rtol", 1e-5), atol=tol.get("atol", 1e-6),
                                           err_msg=f"{name}.{slot}")
            else:
                np.testing.assert_array_equal(got, ref, err_msg=f"{name}.{slot}")
    trace = case.get("kernel_trace") or {}
    if trace.get("expected_kernel_key"):
        (choice,) = op.kernel_choices().values()
        assert str(choice.expected) == trace["expected_kernel_key"]
        sig = trace.get("kernel_signature")
        structure = sig is not None and not (sig.get("inputs") or sig.get("attributes")
                                             or sig.get("outputs"))
        if structure:
            # a STRUCTURE kernel (empty signature): a fluid kernel in Paddle's phi table, a
            # fluid kernel here
            assert not choice.is_phi
        elif trace.get("run_phi_kernel") and sig:
            assert choice.is_phi
            assert str(choice.signature) == sig["raw"]
            assert str(choice.phi_kernel.key) == trace["phi_kernel_key"]
        elif trace.get("run_phi_kernel") is False:
            assert not choice.is_phi
