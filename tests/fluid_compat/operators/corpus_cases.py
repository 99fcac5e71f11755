"""Reading the corpus single-op cases (Paddle 2.6.2's OpDescs, inputs and outputs)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO.parent / "shared" / "corpus"
SINGLE_OPS = CORPUS / "single_ops"
HAVE_CORPUS = SINGLE_OPS.is_dir()
LOCAL = Path(__file__).resolve().parent / "data"

# the legacy ops of issue 3 (feed and fetch run inside programs, not alone)
ISSUE3_OPS = frozenset({
    "scale", "elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div",
    "elementwise_max", "elementwise_min", "elementwise_pow", "matmul", "matmul_v2", "mul",
    "relu", "sigmoid", "tanh", "exp", "softmax", "cast", "fill_constant", "reshape2",
    "transpose2", "concat", "split", "reduce_mean", "reduce_sum", "assign", "lookup_table",
    "flatten2", "fill_any_like",
})


def case_names(ops=ISSUE3_OPS, *, status: str | None = "ok") -> list[str]:
    if not HAVE_CORPUS:
        return []
    out = []
    for p in sorted(SINGLE_OPS.glob("*.json")):
        if p.name == "index.json":
            continue
        c = json.loads(p.read_text())
        if c["op_type"] in ops and (status is None or c["status"] == status):
            out.append(p.stem)
    return out


def load_case(name: str) -> tuple[dict, dict[str, np.ndarray]]:
    for base in (SINGLE_OPS, LOCAL):
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
        attrs[name] = a["value"]
    return attrs


def case_inputs(case: dict, arrays: dict) -> dict[str, list[np.ndarray]]:
    inputs: dict[str, list] = {}
    for slot, items in case["inputs"].items():
        inputs[slot] = [arrays[i["npz_key"]] for i in items]
    return inputs


def case_outputs(case: dict, arrays: dict) -> dict[str, list[tuple[np.ndarray, dict]]]:
    outs: dict[str, list] = {}
    for slot, items in case["outputs"].items():
        for i in items:
            key = i.get("npz_key")
            if key and key in arrays:
                outs.setdefault(slot, []).append((arrays[key], i.get("tolerance") or {}))
    return outs
