"""How the nn kernel tests call a kernel, and checks of the kernels' registrations and bindings.

The nn kernels have no eager API entry (their YAML lives in static_ops.yaml), so ``run_kernel``
does what the dispatcher does: run the InferMeta function bound to the kernel on input metas,
select the CPU kernel from the registry, call it, and require outputs of exactly the inferred
dims and dtype.  Paddle's recorded cases come from the corpus, or from ``data_nn/`` (copies of a
few small ones) when the corpus is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import phi.infermeta
import phi.kernels  # registers the kernels
from phi.backends import get_context
from phi.common import Backend, CPUPlace, DataLayout, DataType
from phi.core.kernel_key import KernelKey
from phi.core.registry import kernel_factory
from phi.core.tensor import MetaTensor
from tests.corpus_paths import CORPUS

REPO = Path(__file__).resolve().parents[3]
LOCAL = Path(__file__).resolve().parent / "data_nn"
CTX = get_context(CPUPlace())

# kernel -> (InferMeta, number of outputs); every binding is positional (inputs, attrs, outputs)
KERNELS = {
    "conv2d": (phi.infermeta.conv_infer_meta, 1),
    "depthwise_conv2d": (phi.infermeta.depthwise_conv_infer_meta, 1),
    "pool2d": (phi.infermeta.pool2d_infer_meta, 1),
    "batch_norm": (phi.infermeta.batch_norm_infer_meta, 6),
    "batch_norm_infer": (phi.infermeta.batch_norm_infer_infer_meta, 3),
    "flatten": (phi.infermeta.flatten_with_xshape_infer_meta, 2),
    "flatten_infer": (phi.infermeta.flatten_infer_meta, 1),
    "hardswish": (phi.infermeta.unchanged_infer_meta, 1),
    "log_softmax": (phi.infermeta.unchanged_infer_meta_check_axis, 1),
    "dropout": (phi.infermeta.dropout_infer_meta, 2),
}

# Paddle 2.6.2's CPU keys, from the corpus (phi_kernels.json), for when the corpus is absent
CPU_DTYPES = {
    "conv2d": {"float32", "float64"},
    "depthwise_conv2d": {"float32", "float64"},
    "pool2d": {"float32", "float64"},
    "batch_norm": {"float32", "float64"},
    "batch_norm_infer": {"float32", "float64"},
    "flatten": {"float32", "float64", "bfloat16", "uint8", "int8", "int16", "int32", "int64"},
    "flatten_infer": {"float32", "float64", "bfloat16", "uint8", "int8", "int16", "int32",
                      "int64"},
    "hardswish": {"float32", "float64", "complex64", "complex128"},
    "log_softmax": {"float32", "float64"},
    "dropout": {"float32", "float64", "bfloat16"},
}


def meta(a) -> MetaTensor | None:
    if a is None:
        return None
    a = np.asarray(a)
    return MetaTensor(tuple(a.shape), DataType.from_numpy(a.dtype))


def run_kernel(name: str, inputs: list, attrs: list, dtype=None):
    """Run CPU kernel ``name`` as the dispatcher does; a tuple of outputs (or one array)."""
    infer, n_out = KERNELS[name]
    outs = [MetaTensor() for _ in range(n_out)]
    infer(*[meta(a) for a in inputs], *attrs, *outs)
    if dtype is None:
        dtype = DataType.from_numpy(np.asarray(inputs[0]).dtype)
    key = KernelKey(Backend.CPU, DataLayout.ALL_LAYOUT, dtype)
    kernel = kernel_factory().select_kernel_or_raise(name, key).kernel
    result = kernel(CTX, *inputs, *attrs)
    results = result if n_out > 1 else (result,)
    assert len(results) == n_out
    for r, m in zip(results, outs, strict=False):
        assert isinstance(r, np.ndarray)
        got = (tuple(r.shape), DataType.from_numpy(r.dtype))
        assert got == (tuple(m.dims), m.dtype), f"{name}: kernel {got}, InferMeta {m}"
    return result


def load_case(name: str):
    """(case JSON, arrays, attribute values) of a Paddle single-op case; skips when absent."""
    for base in (CORPUS / "single_ops", LOCAL):
        path = base / f"{name}.json"
        if path.is_file():
            case = json.loads(path.read_text())
            with np.load(base / f"{name}.npz") as z:
                arrays = {k: z[k] for k in z.files if k != "program_desc"}
            attrs = {k: v["value"] for k, v in case["op_desc"]["attrs"].items()}
            return case, arrays, attrs
    pytest.skip(f"Paddle case {name} not available (no corpus at {CORPUS})")


def corpus_cases(*prefixes: str, fallback: tuple[str, ...] = ()) -> list[str]:
    """Names of the corpus single-op cases starting with ``prefixes`` (status ok)."""
    base = CORPUS / "single_ops"
    if not base.is_dir():
        return list(fallback)
    names = []
    for p in sorted(base.glob("*.json")):
        ok = p.stem != "index" and p.stem.startswith(prefixes)
        if ok and json.loads(p.read_text()).get("status") == "ok":
            names.append(p.stem)
    return names or list(fallback)


def assert_case_output(case, got, arrays, slot: str, index: int = 0) -> None:
    """``got`` equals Paddle's output ``slot`` within the case's own tolerance."""
    ref = arrays[f"out.{slot}.{index}"]
    item = case["outputs"][slot][index]
    tol = item.get("tolerance") or {"rtol": 1e-5, "atol": 1e-6}
    assert got.shape == ref.shape and got.dtype == ref.dtype, (got.shape, got.dtype, ref.shape,
                                                               ref.dtype)
    np.testing.assert_allclose(got, ref, rtol=tol["rtol"], atol=tol["atol"])


# -- the registrations themselves --------------------------------------------------------------

def _paddle_cpu_dtypes(name: str) -> set[str]:
    path = CORPUS / "phi_kernels.json"
    if not path.is_file():
        return CPU_DTYPES[name]
    keys = json.loads(path.read_text())["phi_kernels"][name]["keys"]
    return {k.strip("()").split(", ")[-1] for k in keys if k.startswith("(CPU, Undefined")}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_cpu_dtypes_are_paddles(name):
    registered = {str(k.dtype) for k in kernel_factory().kernels_of(name)
                  if k.backend == Backend.CPU}
    assert registered == _paddle_cpu_dtypes(name) == CPU_DTYPES[name]


SIGNATURES = {  # Paddle 2.6.2's KernelSignature attribute kinds (corpus phi_kernel_args_def)
    "conv2d": (2, ["vector<int>", "vector<int>", "std::string", "vector<int>", "int",
                   "std::string"], 1),
    "depthwise_conv2d": (2, ["vector<int>", "vector<int>", "std::string", "int", "vector<int>",
                             "std::string"], 1),
    "pool2d": (1, ["IntArray", "vector<int>", "vector<int>", "bool", "bool", "std::string",
                   "std::string", "bool", "bool", "std::string"], 1),
    "batch_norm": (5, ["bool", "float", "float", "std::string", "bool", "bool"], 6),
    "batch_norm_infer": (5, ["float", "float", "std::string"], 3),
    "flatten": (1, ["int", "int"], 2),
    "flatten_infer": (1, ["int", "int"], 1),
    "hardswish": (1, [], 1),
    "log_softmax": (1, ["int"], 1),
    "dropout": (2, ["Scalar", "bool", "std::string", "int", "bool"], 2),
}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_argument_definitions_follow_paddles_signature(name):
    n_in, attr_types, n_out = SIGNATURES[name]
    key = KernelKey(Backend.CPU, DataLayout.ALL_LAYOUT, DataType.FLOAT32)
    args = kernel_factory().select_kernel_or_raise(name, key).kernel.args_def
    assert len(args.inputs) == n_in
    assert [str(a.type) for a in args.attributes] == attr_types
    assert len(args.outputs) == n_out


def test_dropout_mask_is_uint8_and_seed_any_dtype():
    key = KernelKey(Backend.CPU, DataLayout.ALL_LAYOUT, DataType.FLOAT32)
    args = kernel_factory().select_kernel_or_raise("dropout", key).kernel.args_def
    assert args.outputs[1].dtype == DataType.UINT8
    assert args.inputs[1].dtype == DataType.ALL_DTYPE


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_static_ops_yaml_binds_the_infer_meta(name):
    try:
        import phi.api

        bound = phi.api.kernel_infer_meta(name)
    except Exception as exc:
        pytest.skip(f"phi.api does not build here: {exc}")
    assert bound is not None, f"static_ops.yaml has no InferMeta binding for {name}"
    fn, binding = bound
    assert fn is KERNELS[name][0]
    key = KernelKey(Backend.CPU, DataLayout.ALL_LAYOUT, DataType.FLOAT32)
    args = kernel_factory().select_kernel_or_raise(name, key).kernel.args_def
    expected = [(True, i) for i in range(len(args.inputs))]
    expected += [(False, j) for j in range(len(args.attributes))]
    assert list(binding) == expected
