"""Where the shared corpus is (``<repo>/../shared/corpus``) and the copies kept in data/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.corpus_paths import CORPUS

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"

#: The legacy ops argmap maps (the first set of ops).
OPS = (
    "feed", "fetch", "scale", "elementwise_add", "elementwise_sub", "elementwise_mul",
    "elementwise_div", "elementwise_max", "elementwise_min", "elementwise_pow", "matmul_v2",
    "mul", "relu", "sigmoid", "tanh", "exp", "softmax", "cast", "fill_constant", "reshape2",
    "transpose2", "concat", "split", "reduce_mean", "reduce_sum", "assign", "conv2d", "pool2d",
    "depthwise_conv2d", "flatten_contiguous_range", "batch_norm", "hard_swish", "log_softmax",
    "dropout", "matmul",
)


def load_data(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def corpus_json(relative: str) -> Any:
    """A corpus file, or a clean skip when the corpus is absent."""
    path = CORPUS / relative
    if not path.is_file():
        pytest.skip(f"corpus file {relative} not found under {CORPUS}")
    return json.loads(path.read_text(encoding="utf-8"))


def trace_signature(record: dict[str, Any] | None) -> str | None:
    """The printed KernelSignature of a kernel_trace record (None: no signature)."""
    if not record:
        return None
    sig = record.get("kernel_signature")
    return sig["raw"] if sig else None
