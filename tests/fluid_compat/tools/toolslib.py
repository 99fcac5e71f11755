"""Models and helpers shared by the tests of the migration tools (ops, compare, explain,
run --pin/--shadow)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from fluid_compat.examples import example_prefix
from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.core.kernel import Kernel
from phi.core.kernel_key import KernelKey
from phi.core.registry import kernel_factory
from tests.corpus_paths import CORPUS

REPO = Path(__file__).resolve().parents[3]
CORPUS_MODELS = CORPUS / "models"
SINGLE_OPS = CORPUS / "single_ops"
FIXTURES = REPO / "tests" / "fixtures" / "models"
LOCAL_CASES = REPO / "tests" / "fluid_compat" / "operators" / "data"

#: the ops that keep a fluid kernel beside their phi kernel (they must really occur)
BOTH_KERNEL_OPS = frozenset({"mul", "elementwise_add", "relu", "softmax", "matmul_v2", "scale",
                             "conv2d", "pool2d"})
CORPUS_MODEL_NAMES = ("mlp", "lenet", "jit_convnet")


def corpus_model(name: str) -> Path:
    """The prefix of a corpus model; skips the test when the corpus is absent."""
    prefix = CORPUS_MODELS / name / "inference"
    if not prefix.with_suffix(".pdmodel").is_file():
        pytest.skip(f"corpus model {name} absent ({CORPUS_MODELS})")
    return prefix


def model_params() -> list:
    """The bundled example (always there) and the corpus models (skipped when absent)."""
    params = [pytest.param("example", id="example")]
    params += [pytest.param(name, id=name) for name in CORPUS_MODEL_NAMES]
    return params


def model_prefix(name: str) -> Path:
    return example_prefix() if name == "example" else corpus_model(name)


RELU_F32 = KernelKey(Backend.CPU, DataLayout.ALL_LAYOUT, DataType.FLOAT32)


@contextlib.contextmanager
def wrong_relu_kernel(delta: float = 1e-3) -> Iterator[Kernel]:
    """Replace phi's float32 CPU relu with one that is off by ``delta`` (the real one comes
    back on exit): a deliberately wrong phi kernel that compare and shadow mode must catch."""
    factory = kernel_factory()
    real = factory.kernels_of("relu")[RELU_F32]

    def off_by_delta(ctx, x):
        return real.fn(ctx, x) + x.dtype.type(delta)

    factory.unregister("relu", RELU_F32)
    factory.register(Kernel(real.name, real.key, off_by_delta, real.args_def))
    try:
        yield real
    finally:
        factory.unregister("relu", RELU_F32)
        factory.register(real)
