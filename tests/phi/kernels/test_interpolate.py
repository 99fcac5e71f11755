"""bilinear_interp_v2 / nearest_interp_v2 against Paddle 2.6.2 on a grid of settings
(recorded by tools/fixtures/gen_interp_cases.py): align_corners, align_mode, NCHW / NHWC,
sizes and scales through the legacy op; sizes from OutSize / SizeTensor / Scale tensors through
the kernels (their output size depends on tensor values, which InferMeta cannot see)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat.imperative import run_op
from phi.backends import get_context
from phi.common import CPUPlace
from phi.kernels import interpolate

DATA = json.loads(gzip.decompress(
    (Path(__file__).resolve().parent / "data_paddle" / "interp_paddle.json.gz").read_bytes()))
X = np.array(DATA["x"], np.float32).reshape(1, 2, 5, 7)
ATTR_CASES = [c for c in DATA["cases"] if not c[2]]
TENSOR_CASES = [c for c in DATA["cases"] if c[2]]


def _id(case) -> str:
    method, a, tensors = case[:3]
    size = a["scale"] or [a["out_h"], a["out_w"]]
    return (f"{method}-{a['data_layout']}-ac{int(a['align_corners'])}-am{a['align_mode']}-"
            f"{size}-{sorted(tensors)}")


def _x(attrs):
    return X if attrs["data_layout"] == "NCHW" else X.transpose(0, 2, 3, 1).copy()


@pytest.mark.parametrize("case", ATTR_CASES, ids=[_id(c) for c in ATTR_CASES])
def test_legacy_op_matches_paddle(case):
    method, attrs, _, shape, values = case
    got = run_op(f"{method}_interp_v2", {"X": _x(attrs)}, attrs)["Out"][0]
    np.testing.assert_allclose(got, np.array(values, np.float32).reshape(shape), rtol=1e-6,
                               atol=1e-6)


@pytest.mark.parametrize("case", TENSOR_CASES, ids=[_id(c) for c in TENSOR_CASES])
def test_sizes_from_tensors_match_paddle(case):
    method, attrs, tensors, shape, values = case
    kernel = getattr(interpolate, f"{method}_interp")
    out_size = np.array(tensors["OutSize"], np.int32) if "OutSize" in tensors else None
    sizes = [np.array(v, np.int32) for v in tensors.get("SizeTensor", [])]
    scale = np.array(tensors["Scale"], np.float32) if "Scale" in tensors else None
    got = kernel(get_context(CPUPlace()), _x(attrs), out_size, sizes, scale,
                 attrs["data_layout"], 0, attrs["out_h"], attrs["out_w"], attrs["scale"],
                 method, attrs["align_corners"], attrs["align_mode"])
    np.testing.assert_allclose(got, np.array(values, np.float32).reshape(shape), rtol=1e-6,
                               atol=1e-6)
