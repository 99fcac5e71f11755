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

# the legacy ops of issue 3 (feed and fetch run inside programs, not alone)
ISSUE3_OPS = frozenset({
    "scale", "elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div",
    "elementwise_max", "elementwise_min", "elementwise_pow", "matmul", "matmul_v2", "mul",
    "relu", "sigmoid", "tanh", "exp", "softmax", "cast", "fill_constant", "reshape2",
    "transpose2", "concat", "split", "reduce_mean", "reduce_sum", "assign", "lookup_table",
    "flatten2", "fill_any_like",
})

# the legacy ops of issue 5 done so far (grown op by op)
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
