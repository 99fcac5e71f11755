"""Conformance cases for cast, scale and clip, ported from Paddle's test/legacy_test/
test_cast_op.py (in_dtype / out_dtype pairs over the proto dtype enum, fp16 / bf16 both ways,
0-d), test_scale_op.py (scale -2.3, bias, bias_after_scale both ways, ScaleTensor, fp16 / bf16,
int) and test_clip_op.py (min / max attributes and Min / Max tensors, shapes [10, 10],
[8, 16, 8], [4, 8, 16], values kept away from the bounds).

References are numpy over float64 (C++ casts truncate toward zero). Cases producing float16 /
bfloat16 take Paddle 2.6.2's outputs ("paddle", data/test_cast_scale_clip.npz): Paddle's CPU
converts float32 -> half by truncation, numpy rounds to nearest."""

from __future__ import annotations

import numpy as np
import pytest

from phi.core.errors import NotFound
from fluid_compat import run_op

from .opcase import BF16, Case, check, rs

# proto VarType enum of the dtypes cast takes
ENUM = {"bool": 0, "int16": 1, "int32": 2, "int64": 3, "float16": 4, "float32": 5, "float64": 6,
        "uint8": 20, "int8": 21, "bfloat16": 22, "complex64": 23, "complex128": 24}
HALF = ("float16", "bfloat16")


def _np(dt):
    return np.dtype(BF16 if dt == "bfloat16" else dt)


def _draw(dt, shape, seed):
    r = rs(seed)
    d = _np(dt)
    if d.kind == "b":
        return r.randint(0, 2, shape).astype(bool)
    if d.kind in "iu":
        return r.randint(0, 100, shape).astype(d)
    v = r.uniform(-10, 10, shape) if dt not in HALF else r.uniform(0, 100, shape)
    if d.kind == "c":
        v = v + 1j * r.uniform(-10, 10, shape)
    return v.astype(d)


def _cast_ref(x, dt):
    d = _np(dt)
    if x.dtype.kind == "c" and d.kind != "c":
        x = x.real  # Paddle's complex -> real cast keeps the real part
    if d.kind in "iu" and x.dtype.kind == "f":
        return np.trunc(x.astype(np.float64)).astype(d)
    return x.astype(d)


def _cast_cases():
    out = []
    pairs = [(a, b) for a in ENUM for b in ENUM if a != b]
    for k, (src, dst) in enumerate(pairs):
        if src.startswith("complex") and dst in (*HALF, "bool"):
            continue
        x = _draw(src, [10, 10] if k % 7 else [], k)
        expect = "paddle" if dst in HALF or src in HALF else {"Out": _cast_ref(x, dst)}
        out.append(Case(f"cast-{src}-{dst}", "cast", {"X": x},
                        {"in_dtype": ENUM[src], "out_dtype": ENUM[dst]}, expect))
    # float -> int truncates toward zero; float -> bool is x != 0; NaN -> bool is true
    x = np.array([-2.7, -0.5, 0.0, 0.5, 2.7, 1e9], np.float32)
    out += [Case("cast-trunc-int32", "cast", {"X": x}, {"in_dtype": 5, "out_dtype": 2},
                 {"Out": np.array([-2, 0, 0, 0, 2, 1000000000], np.int32)}),
            Case("cast-to-bool", "cast", {"X": np.array([0.0, -0.0, 0.1, np.nan], np.float32)},
                 {"in_dtype": 5, "out_dtype": 0}, {"Out": np.array([0, 0, 1, 1], bool)}),
            Case("cast-fp32-fp16-overflow", "cast",
                 {"X": np.array([65504, 65519, 65520, 1e6, -1e6, 3e-8], np.float32)},
                 {"in_dtype": 5, "out_dtype": 4}, "paddle")]
    return out


SCALE_DTYPES = ["float32", "float64", "int32", "int64", "float16", "bfloat16", "int8", "uint8",
                "int16", "complex64", "complex128"]


def _scale_cases():
    out = []
    attr_sets = [{"scale": -2.3}, {"scale": -2.3, "bias": 0.5},
                 {"scale": 2.0, "bias": 1.5, "bias_after_scale": False},
                 {"scale": 0.0, "bias": 0.0}]
    for dt in SCALE_DTYPES:
        for k, attrs in enumerate(attr_sets):
            if dt in ("int8", "uint8", "int16", "int32", "int64"):
                attrs = {a: (round(v) if isinstance(v, float) else v) for a, v in attrs.items()}
            x = _draw(dt, [10, 10], 500 + k)
            if dt in ("float32", "float64", "complex64", "complex128"):
                s, b = attrs["scale"], attrs.get("bias", 0.0)
                xr = x.astype(np.complex128 if dt.startswith("c") else np.float64)
                ref = s * xr + b if attrs.get("bias_after_scale", True) else s * (xr + b)
                expect = {"Out": ref.astype(dt)}
            else:
                expect = "paddle"
            out.append(Case(f"scale-{k}-{dt}", "scale", {"X": x}, attrs, expect))
    x = _draw("float32", [], 600)
    out.append(Case("scale-0d", "scale", {"X": x}, {"scale": 3.0, "bias": -1.0},
                    {"Out": np.asarray(3.0 * x.astype(np.float64) - 1.0, np.float32)}))
    x = _draw("float32", [10, 10], 601)  # ScaleTensor wins over the attribute
    out.append(Case("scale-ScaleTensor", "scale",
                    {"X": x, "ScaleTensor": np.array([-2.3], np.float32)}, {"scale": 5.0},
                    {"Out": (x.astype(np.float64) * np.float32(-2.3)).astype(np.float32)}))
    return out


CLIP = [([10, 10], 0.3, 0.8), ([8, 16, 8], 0.0, 0.7), ([4, 8, 16], 0.2, 0.8),
        ([4, 8, 8], 0.1, 0.9), ([], 0.2, 0.6), ([4, 3], 0.5, 0.5)]


def _clip_cases():
    out = []
    for k, (shape, lo, hi) in enumerate(CLIP):
        for dt in ("float32", "float64"):
            x = rs(700 + k).uniform(lo - 0.5, hi + 0.5, shape)
            # the test moves values within 0.02 of a bound away from it
            x[np.abs(x - lo) < 0.02] = lo - 0.05
            x[np.abs(x - hi) < 0.02] = hi + 0.05
            x = x.astype(dt)
            ref = np.minimum(np.maximum(x, np.float32(lo).astype(dt)), np.float32(hi).astype(dt))
            out.append(Case(f"clip-{k}-{dt}", "clip", {"X": x}, {"min": lo, "max": hi},
                            {"Out": ref}))
            ins = {"X": x, "Min": np.array([lo], dt), "Max": np.array([hi], dt)}
            out.append(Case(f"clip-tensors-{k}-{dt}", "clip", ins, {"min": -9.0, "max": 9.0},
                            {"Out": ref}))
    for dt in ("int32", "int64"):
        x = rs(750).randint(-10, 10, [10, 10]).astype(dt)
        out.append(Case(f"clip-{dt}", "clip", {"X": x}, {"min": -3.0, "max": 4.0},
                        {"Out": np.clip(x, -3, 4).astype(dt)}))
    x = np.array([np.nan, -np.inf, np.inf, 0.5], np.float32)
    out.append(Case("clip-nan", "clip", {"X": x}, {"min": 0.0, "max": 1.0}, "paddle"))
    return out


CASES = _cast_cases() + _scale_cases() + _clip_cases()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_cast_scale_clip(case):
    check("test_cast_scale_clip", case)


@pytest.mark.parametrize("op,ins,attrs", [
    ("clip", {"X": np.ones([2, 2], np.float16)}, {"min": 0.0, "max": 1.0}),
    ("clip", {"X": np.ones([2, 2], np.int16)}, {"min": 0.0, "max": 1.0}),
])
def test_missing_dtype_is_typed_not_found(op, ins, attrs):
    with pytest.raises(NotFound) as info:
        run_op(op, ins, attrs)
    assert f"({op})" in str(info.value) and "float32" in str(info.value)
