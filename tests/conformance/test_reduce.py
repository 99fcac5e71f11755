"""Conformance cases for reduce_sum / mean / max / min / prod / all / any, ported from Paddle's
test/legacy_test/test_reduce_op.py: its shapes (1-D to 8-D, 0-d), `dim` lists (negative ones
included), `keep_dim`, `reduce_all`, the dim-of-size-one cases, random(...) inputs (randint(0, 2)
for all / any) and dtypes (fp16 / bf16 sums, int sums, `out_dtype`).

float32 / float64 references are numpy over float64. Integer, bool and half cases take Paddle
2.6.2's outputs ("paddle", data/test_reduce.npz): their output dtypes (int32 / bool sums give
int64), integer mean and half accumulation are Paddle's, not numpy's."""

from __future__ import annotations

import numpy as np
import pytest

from phi.core.errors import InvalidArgument, NotFound
from fluid_compat import run_op

from .opcase import BF16, Case, check, rs

NP = {"reduce_sum": np.sum, "reduce_mean": np.mean, "reduce_max": np.max, "reduce_min": np.min,
      "reduce_prod": np.prod, "reduce_all": np.all, "reduce_any": np.any}

# (shape, attrs) per the unit tests
LAYOUTS = [
    ([5, 6, 10], {"dim": [0]}),
    ([5, 6, 10], {"dim": [-1]}),
    ([5, 6, 10], {"dim": [2]}),
    ([1, 2, 5, 6, 10], {"dim": [0]}),
    ([1, 1, 2, 5, 6, 10], {"dim": [2, 4]}),
    ([2, 3, 4, 5, 6, 7], {"dim": [2, 3, 4]}),
    ([1, 3, 1, 2, 1, 4, 3, 10], {"dim": [0, 3]}),
    ([120], {"dim": [0]}),
    ([20, 10], {"dim": [1]}),
    ([5, 6, 7], {"dim": [-2]}),
    ([5, 6, 7], {"dim": [1, 2]}),
    ([5, 6, 10], {"dim": [1], "keep_dim": True}),
    ([2, 5, 3, 2, 2, 3, 4, 2], {"dim": [3, 4, 5], "keep_dim": True}),
    ([5, 6, 2, 10], {"reduce_all": True}),
    ([5, 6, 2, 10], {"dim": [0, 1, 2, 3], "keep_dim": True}),
    ([100, 1, 1], {"dim": [1, 2], "keep_dim": True}),
    ([100, 1], {"dim": [1], "keep_dim": False}),
    ([], {"dim": []}),
    ([], {"dim": [0]}),
    ([3, 4], {"dim": []}),  # an empty dim list reduces everything (reduce_all)
]
FLOAT_OPS = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"]

# Paddle's CPU dtypes beyond float32 / float64, run on the first layouts
EXTRA = {
    # float16 is registered but refused on CPU before the kernel (test_half_refused_on_cpu)
    "reduce_sum": ["bool", "uint8", "int8", "int16", "int32", "int64", "complex64",
                   "complex128", "bfloat16"],
    "reduce_mean": ["bool", "int32", "int64", "complex64", "complex128"],
    "reduce_max": ["int32", "int64"],
    "reduce_min": ["int32", "int64"],
    "reduce_prod": ["int32", "int64"],
    "reduce_all": ["bool", "int32", "int64", "float32", "float64"],
    "reduce_any": ["bool", "int32", "int64", "float32", "float64"],
}


def _np_ref(op, x, attrs):
    axis = None if attrs.get("reduce_all") or not attrs.get("dim") else tuple(attrs["dim"])
    if x.ndim == 0:
        axis = None
    return NP[op](x, axis=axis, keepdims=bool(attrs.get("keep_dim")))


def _draw(op, shape, dtype, seed):
    r = rs(seed)
    dt = np.dtype(BF16 if dtype == "bfloat16" else dtype)
    if op in ("reduce_all", "reduce_any") or dt.kind == "b":
        return r.randint(0, 2, shape).astype(dt)
    if dt.kind in "iu":
        return r.randint(0 if op == "reduce_prod" else -5 * (dt.kind == "i"), 5, shape).astype(dt)
    if dt.kind == "c":
        return (r.random_sample(shape) + 1j * r.random_sample(shape)).astype(dt)
    if dt.itemsize == 2:
        return r.uniform(0, 0.1, shape).astype(dt)  # the fp16 / bf16 tests' range
    return r.random_sample(shape).astype(dt)


def _cases():
    out = []
    for n, op in enumerate(NP):
        for k, (shape, attrs) in enumerate(LAYOUTS):
            if op == "reduce_prod" and np.prod(shape) > 200:
                shape = shape[-3:] if len(shape) >= 3 else shape  # products of ~1000 values
                attrs = {a: v for a, v in attrs.items() if a != "dim"} | (
                    {"dim": [d for d in attrs.get("dim", []) if -len(shape) <= d < len(shape)]}
                    if "dim" in attrs else {})
            floats = ["float32", "float64"] if op in FLOAT_OPS else []
            for dt in floats + (EXTRA[op] if k < 3 or k >= 17 else []):
                x = _draw(op, shape, dt, 1000 * n + 10 * k)
                if dt in ("float32", "float64") and op in FLOAT_OPS:
                    ref = np.asarray(_np_ref(op, x.astype(np.float64), attrs)).astype(dt)
                    expect = {"Out": ref}
                elif op in ("reduce_all", "reduce_any"):
                    expect = {"Out": np.asarray(_np_ref(op, x, attrs))}
                else:
                    expect = "paddle"
                out.append(Case(f"{op}-{k}-{dt}", op, {"X": x}, attrs, expect))
    return out


# out_dtype (proto enum: 2 int32, 3 int64, 5 float32, 6 float64), empty and NaN reductions
_I = rs(7).randint(-5, 5, [4, 6]).astype(np.int32)
_F = rs(8).random_sample([4, 6]).astype(np.float32)
_NANX = np.array([[1.0, np.nan, 3.0], [np.inf, -np.inf, 2.0]], np.float32)
EDGE = [
    Case("reduce_sum-int32-out_fp64", "reduce_sum", {"X": _I}, {"dim": [1], "out_dtype": 6},
         {"Out": _I.astype(np.float64).sum(1)}),
    Case("reduce_sum-fp32-out_fp64", "reduce_sum", {"X": _F}, {"dim": [0], "out_dtype": 6},
         {"Out": _F.astype(np.float64).sum(0)}, tol=dict(rtol=1e-6, atol=1e-6)),
    Case("reduce_sum-int32-out_int32", "reduce_sum", {"X": _I}, {"dim": [0], "out_dtype": 2},
         {"Out": _I.sum(0).astype(np.int32)}),
] + [Case(f"{op}-nan", op, {"X": _NANX}, {"dim": [1]}, "paddle") for op in FLOAT_OPS] + [
    Case(f"{op}-nan-dim0", op, {"X": _NANX}, {"dim": [0]}, "paddle") for op in FLOAT_OPS]

CASES = _cases() + EDGE


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_reduce(case):
    check("test_reduce", case)


# Paddle 2.6.2 refuses an empty input to every reduction (ReduceKernelImpl: "Tensor need be
# reduced must not empty.", all / any: "The dims of Input(X) should be greater than 0."),
# whatever the dtype, dim or reduce_all (checked with the wheel)
@pytest.mark.parametrize("op", list(NP))
@pytest.mark.parametrize("attrs", [{"dim": [0]}, {"dim": [1]}, {"reduce_all": True}])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_empty_input_is_refused(op, attrs, dtype):
    if dtype == "bool" and op not in ("reduce_sum", "reduce_mean", "reduce_all", "reduce_any"):
        pytest.skip("no bool kernel")
    with pytest.raises(InvalidArgument):
        run_op(op, {"X": np.zeros([0, 3], dtype)}, attrs)


# GetReduceExpectedKernelType: float16 only on GPU / XPU / custom places (InvalidArgument on
# CPU, before any kernel lookup, even for reduce_sum which has a float16 CPU kernel)
@pytest.mark.parametrize("op", FLOAT_OPS)
def test_half_refused_on_cpu(op):
    with pytest.raises(InvalidArgument, match="float16 can only be used on GPU"):
        run_op(op, {"X": np.ones([2, 3], np.float16)}, {"dim": [0]})


@pytest.mark.parametrize("op,dtype", [("reduce_max", "bfloat16"), ("reduce_prod", "bool"),
                                      ("reduce_mean", "bfloat16"), ("reduce_min", "int16"),
                                      ("reduce_all", "int8")])
def test_missing_dtype_is_typed_not_found(op, dtype):
    x = np.ones([2, 3], BF16 if dtype == "bfloat16" else dtype)
    with pytest.raises(NotFound) as info:
        run_op(op, {"X": x}, {"dim": [0]})
    assert f"({op})" in str(info.value) and "float32" in str(info.value)
