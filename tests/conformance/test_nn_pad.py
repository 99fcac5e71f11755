"""Conformance cases for pad3d and pad, ported from Paddle's test/legacy_test/test_pad3d_op.py
and test_pad_op.py: constant / reflect / replicate / circular modes, NCDHW and NDHWC, the
Paddings tensor input, pad_value, and every dtype the bridge registers. References: np.pad."""

from __future__ import annotations

import numpy as np
import pytest

from fluid_compat import run_op

NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
           "circular": "wrap"}


def _x(shape, dtype):
    r = np.random.default_rng(0)
    if dtype.startswith("int"):
        return r.integers(-50, 50, shape).astype(dtype)
    x = r.uniform(-1, 1, shape)
    if dtype.startswith("complex"):
        x = x + 1j * r.uniform(-1, 1, shape)
    return x.astype(dtype)


# (paddings [left, right, top, bottom, front, back], mode)
PAD3D = [([0, 0, 0, 0, 0, 0], "constant"), ([1, 2, 3, 4, 5, 6], "constant"),
         ([1, 2, 1, 2, 1, 2], "reflect"), ([2, 1, 0, 2, 1, 0], "replicate"),
         ([1, 2, 3, 1, 2, 3], "circular")]


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "complex64",
                                   "complex128"])
@pytest.mark.parametrize("fmt", ["NCDHW", "NDHWC"])
@pytest.mark.parametrize("tensor", [False, True])
@pytest.mark.parametrize("case", PAD3D, ids=[f"{m}{i}" for i, (_, m) in enumerate(PAD3D)])
def test_pad3d(case, tensor, fmt, dtype):
    pads, mode = case
    x = _x([2, 3, 4, 5, 6], dtype)
    inputs = {"X": x}
    attrs = dict(mode=mode, value=0.5 if not dtype.startswith("int") else 3.0,
                 data_format=fmt, paddings=pads)
    if tensor:
        inputs["Paddings"] = np.array(pads, np.int32)
        attrs["paddings"] = [0] * 6
    out = run_op("pad3d", inputs, attrs)["Out"][0]
    spatial = [(pads[4], pads[5]), (pads[2], pads[3]), (pads[0], pads[1])]
    width = [(0, 0), (0, 0), *spatial] if fmt == "NCDHW" else [(0, 0), *spatial, (0, 0)]
    kw = {"constant_values": attrs["value"]} if mode == "constant" else {}
    ref = np.pad(x, width, mode=NP_MODE[mode], **kw)
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "complex64",
                                   "complex128"])
@pytest.mark.parametrize("case", [([16, 16], [0, 1, 2, 3], 0.0), ([2, 3, 4], [0, 1, 2, 3, 4, 5],
                                                                    2.0),
                                  ([5], [0, 0], 1.0), ([2, 0], [1, 1, 1, 1], -1.0)],
                         ids=["2d", "3d", "nopad", "empty"])
def test_pad(case, dtype):
    shape, pads, value = case
    x = _x(shape, dtype)
    out = run_op("pad", {"X": x}, dict(paddings=pads, pad_value=value))["Out"][0]
    ref = np.pad(x, np.array(pads).reshape(-1, 2), constant_values=value)
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(out, ref)
