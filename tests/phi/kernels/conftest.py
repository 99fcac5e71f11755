"""How the kernel tests call an op, and where they find Paddle's recorded outputs.

``run_op(name, *args, **kwargs)`` calls ``phi.api.<name>`` when the eager API builds and has the
op; otherwise a local stand-in does what the API does on CPU: bind the arguments by the
ops.yaml entry, run its InferMeta function, select the CPU kernel from the registry, call it and
check that the outputs have exactly the inferred dims and dtype.  Either way it returns numpy
arrays (a list for a ``Tensor[]`` output).  Set ``PHI_TEST_LOCAL_OPS=1`` to force the stand-in.
"""

from __future__ import annotations

import json
import os
import re
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import yaml

import phi.infermeta
import phi.kernels  # registers the kernels
from phi.backends import get_context
from phi.common import Backend, CPUPlace, DataLayout, DataType, IntArray, Scalar
from phi.core.errors import PhiError
from phi.core.kernel_key import KernelKey
from phi.core.registry import kernel_factory
from phi.core.tensor import MetaTensor
from tests.corpus_paths import SINGLE_OPS

REPO = Path(__file__).resolve().parents[3]
OPS_YAML = REPO / "phi" / "api" / "ops.yaml"
CORPUS = SINGLE_OPS  # this module names the single-op folder CORPUS


# -- the local stand-in for phi.api --------------------------------------------------------------

def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _default(type_: str, text: str):
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if text.startswith("DataType::"):
        return DataType[text.split("::", 1)[1]]
    if text in ("{}", "CPUPlace()"):
        return None if type_ == "Place" else []
    return float(text) if "." in text else int(text)


@cache
def _spec(op: str) -> dict:
    entries = {e["op"]: e for e in yaml.safe_load(OPS_YAML.read_text())}
    if op not in entries:
        raise KeyError(f"ops.yaml has no op {op!r}")
    e = entries[op]
    args = []
    for part in e["args"].strip()[1:-1].split(","):
        decl, _, default = part.strip().partition("=")
        type_, name = decl.split()
        args.append((type_, name, _default(type_, default) if default else _REQUIRED))
    names = [a[1] for a in args]
    out = e["output"].strip()
    return {
        "args": args,
        "infer": getattr(phi.infermeta, _snake(e["infer_meta"]["func"])),
        "infer_param": e["infer_meta"].get("param", names),
        "kernel": e["kernel"]["func"],
        "kernel_param": e["kernel"].get("param", names),
        "data_type": e["kernel"].get("data_type"),
        "vector_out": out.startswith("Tensor[]"),
        "count": re.search(r"\{(\w+)\.size\(\)\}", out).group(1) if "{" in out else None,
    }


_REQUIRED = object()


def _convert(type_: str, value):
    if type_ == "Tensor":
        return np.asarray(value)
    if type_ == "Tensor[]":
        return [np.asarray(v) for v in value]
    if type_ == "Scalar":
        return value if isinstance(value, Scalar) else Scalar(value)
    if type_ == "IntArray":
        return value if isinstance(value, IntArray) else IntArray(value)
    if type_ == "DataType":
        return DataType.from_any(value)
    return value


def _meta(a: np.ndarray) -> MetaTensor:
    return MetaTensor(tuple(a.shape), DataType.from_numpy(a.dtype))


def _local_op(op: str, *args, **kwargs):
    spec = _spec(op)
    bound = {}
    for i, (type_, name, default) in enumerate(spec["args"]):
        if i < len(args):
            value = args[i]
        elif name in kwargs:
            value = kwargs.pop(name)
        elif default is not _REQUIRED:
            value = default
        else:
            raise TypeError(f"{op}() missing argument {name!r}")
        bound[name] = (type_, _convert(type_, value))
    if kwargs:
        raise TypeError(f"{op}() got unexpected arguments {sorted(kwargs)}")

    def meta_of(name):
        type_, v = bound[name]
        if type_ == "Tensor":
            return _meta(v)
        if type_ == "Tensor[]":
            return [_meta(a) for a in v]
        return v

    count = len(bound[spec["count"]][1]) if spec["count"] else None
    outs = [MetaTensor() for _ in range(count)] if spec["vector_out"] else MetaTensor()
    spec["infer"](*[meta_of(n) for n in spec["infer_param"]], outs)

    dtype = DataType.UNDEFINED
    for type_, v in bound.values():  # the last tensor argument decides, as in the API
        if type_ == "Tensor":
            dtype = DataType.from_numpy(v.dtype)
        elif type_ == "Tensor[]" and v:
            dtype = DataType.from_numpy(v[0].dtype)
    if spec["data_type"]:
        for name in (p.strip() for p in spec["data_type"].split(">")):
            type_, v = bound[name]
            if type_ == "DataType" and v != DataType.UNDEFINED:
                dtype = v
                break
            if type_ == "Tensor":
                dtype = DataType.from_numpy(v.dtype)
                break
    key = KernelKey(Backend.CPU, DataLayout.ALL_LAYOUT, dtype)
    kernel = kernel_factory().select_kernel_or_raise(spec["kernel"], key).kernel
    tensors = [bound[n][1] for n in spec["kernel_param"] if bound[n][0].startswith("Tensor")]
    attrs = [bound[n][1] for n in spec["kernel_param"] if not bound[n][0].startswith("Tensor")]
    result = kernel.fn(get_context(CPUPlace()), *tensors, *attrs)

    def check(arr, meta):
        arr = np.asarray(arr) if not isinstance(arr, np.ndarray) else arr
        got = (tuple(arr.shape), DataType.from_numpy(arr.dtype))
        if got != (tuple(meta.dims), meta.dtype):
            raise AssertionError(
                f"{op}: kernel returned {list(got[0])} {got[1]}, InferMeta says "
                f"{list(meta.dims)} {meta.dtype}"
            )
        return arr

    if spec["vector_out"]:
        assert len(result) == len(outs)
        return [check(r, m) for r, m in zip(result, outs, strict=False)]
    return check(result, outs)


# -- choosing phi.api or the stand-in ------------------------------------------------------------

@cache
def _api_function(op: str):
    if os.environ.get("PHI_TEST_LOCAL_OPS"):
        return None
    try:
        import phi.api

        return getattr(phi.api, op)
    except (ImportError, AttributeError, PhiError):  # no API yet, or it does not build
        return None


def _to_numpy(result):
    if isinstance(result, (list, tuple)):
        return [_to_numpy(r) for r in result]
    return np.asarray(result)


def call_op(op: str, *args, **kwargs):
    """Run ``op`` on CPU through phi.api (or the local stand-in); numpy results."""
    fn = _api_function(op)
    if fn is None:
        return _local_op(op, *args, **kwargs)
    return _to_numpy(fn(*args, **kwargs))


@pytest.fixture
def run_op():
    """The function tests call ops with: ``run_op("add", x, y)``."""
    return call_op


# -- Paddle's recorded single-op cases -----------------------------------------------------------

def load_case(name: str):
    """(case JSON, npz arrays) of a corpus case; skips the test when the corpus is absent."""
    path = CORPUS / f"{name}.json"
    if not path.exists():
        pytest.skip(f"Paddle corpus case {name} not available ({CORPUS})")
    case = json.loads(path.read_text())
    with np.load(CORPUS / f"{name}.npz") as npz:
        arrays = {k: npz[k] for k in npz.files if k != "program_desc"}
    return case, arrays


def case_attr(case: dict, name: str):
    """The value of attribute ``name`` in the case's OpDesc."""
    return case["op_desc"]["attrs"][name]["value"]


def assert_array(got, expected, rtol: float = 0.0, atol: float = 0.0) -> None:
    """Same shape and dtype exactly; floats (NaN equal) within rtol/atol, others equal."""
    got = np.asarray(got)
    expected = np.asarray(expected)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    if expected.dtype.kind == "c":
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)
    elif expected.dtype.kind == "f" or expected.dtype.name == "bfloat16":
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64),
                                   rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(got, expected)
