"""Each kernel is registered on CPU for exactly the dtypes Paddle 2.6.2 registers there."""

from __future__ import annotations

import json

import numpy as np
import pytest

from phi.common import Backend, DataType
from phi.core.errors import NotFound
from phi.core.registry import kernel_factory
from tests.phi.kernels.conftest import CORPUS, call_op

KERNELS = ["full", "full_like", "cast", "scale", "add", "subtract", "multiply", "divide",
           "maximum", "minimum", "relu", "sigmoid", "tanh", "exp", "softmax", "matmul", "reshape",
           "transpose", "concat", "split", "mean", "sum"]
KERNELS += [
    "less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal",
    "less_than_raw", "less_equal_raw", "greater_than_raw", "greater_equal_raw", "equal_raw",
    "not_equal_raw", "logical_and", "logical_or", "logical_xor", "logical_not", "increment",
    "relu6", "leaky_relu", "elu", "hardsigmoid", "swish", "silu", "mish", "gelu", "sqrt",
    "rsqrt", "abs", "log", "floor", "ceil", "round", "sign", "erf", "prelu", "pow", "clip",
    "where", "cumsum", "argmax", "argmin", "topk", "argsort", "gather", "gather_nd",
    "index_select", "embedding", "squeeze", "squeeze_infer", "unsqueeze", "unsqueeze_infer",
    "stack", "unstack", "slice", "strided_slice", "strided_slice_raw", "expand", "expand_as",
    "tile", "shape", "numel", "one_hot_raw", "add_n", "max", "max_raw", "min", "min_raw",
    "prod", "prod_infer", "all", "all_raw", "any", "any_raw", "isnan", "isinf", "isfinite",
    "p_norm", "tril_triu", "layer_norm", "instance_norm", "group_norm", "assign_value",
    "pixel_shuffle", "pad3d", "conv2d_transpose", "bilinear_interp", "nearest_interp",
    "arange_tensor", "linspace", "unique", "unique_raw",
]
PHI_KERNELS = CORPUS.parent / "phi_kernels.json"


def _registered(name: str, backend: Backend) -> set[str]:
    return {str(k.dtype) for k in kernel_factory().kernels_of(name) if k.backend == backend}


@pytest.mark.parametrize("name", KERNELS)
def test_cpu_dtypes_equal_paddle_registry(name):
    if not PHI_KERNELS.exists():
        pytest.skip("Paddle corpus phi_kernels.json not available")
    keys = json.loads(PHI_KERNELS.read_text())["phi_kernels"][name]["keys"]
    prefix = "(CPU, Undefined(AnyLayout), "
    paddle = {k[len(prefix):-1] for k in keys if k.startswith(prefix)}
    assert _registered(name, Backend.CPU) == paddle


@pytest.mark.parametrize("name", KERNELS)
def test_gpu_registration_mirrors_cpu(name):
    assert _registered(name, Backend.GPU) == _registered(name, Backend.CPU)


@pytest.mark.parametrize(
    ("name", "where", "field", "value"),
    [
        ("cast", "output", "dtype", DataType.UNDEFINED),
        ("sum", "output", "dtype", DataType.UNDEFINED),
        ("full_like", "input", "backend", Backend.ALL_BACKEND),
    ],
)
def test_per_argument_overrides(name, where, field, value):
    for kernel in kernel_factory().kernels_of(name).values():
        defs = kernel.args_def.outputs if where == "output" else kernel.args_def.inputs
        assert getattr(defs[0], field) == value


@pytest.mark.parametrize(
    ("op", "args", "dtype"),
    [
        ("relu", (np.ones(3, np.int32),), "int32"),  # Paddle 2.6.2's own error text
        ("add", (np.ones(2, bool), np.ones(2, bool)), "bool"),
        ("add", (np.ones(2, np.float16), np.ones(2, np.float16)), "float16"),
        ("softmax", (np.ones(2, np.float16), -1), "float16"),
        ("matmul", (np.ones((2, 2), bool), np.ones((2, 2), bool)), "bool"),
        ("mean", (np.ones(2, np.float16),), "float16"),
        ("maximum", (np.ones(2, np.int16), np.ones(2, np.int16)), "int16"),
        ("full_like", (np.ones(2, np.int8), 1), "int8"),
    ],
)
def test_unregistered_dtype_raises_not_found(op, args, dtype):
    with pytest.raises(NotFound, match=f"Selected wrong DataType `{dtype}`"):
        call_op(op, *args)
