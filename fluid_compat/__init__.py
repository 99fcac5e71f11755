"""fluid_compat: the legacy (fluid) operator system on top of phi kernels.

    from fluid_compat import run_op, legacy_ops, load_inference_model, Executor
    run_op("elementwise_add", {"X": x, "Y": y}, {"axis": -1})
    program, feeds, fetches = load_inference_model("model/inference")
    outs = Executor().run(program, feed={feeds[0]: x}, fetch_list=fetches)

    from fluid_compat import inference      # Paddle Inference's API: Config, create_predictor
"""

from __future__ import annotations

# the operators: they install themselves into the framework's op registry (which imports none)
import fluid_compat.operators  # noqa: F401
from fluid_compat.executor import Executor, FeedError, Program, RunStats, global_scope
from fluid_compat.framework.scope import LoDTensorArray, lod_tensor, lod_tensor_array
from fluid_compat.imperative import legacy_ops, run_op, run_op_tensors
from fluid_compat.io import load_inference_model, save_inference_model
from phi.core.selected_rows import SelectedRows, selected_rows
from phi.core.sparse_tensor import (
    SparseCooTensor,
    SparseCsrTensor,
    sparse_coo_tensor,
    sparse_csr_tensor,
)

__all__ = [
    "Executor",
    "FeedError",
    "LoDTensorArray",
    "Program",
    "append_backward",
    "describe_program",
    "inference",
    "RunStats",
    "SelectedRows",
    "SparseCooTensor",
    "SparseCsrTensor",
    "global_scope",
    "legacy_ops",
    "load_inference_model",
    "lod_tensor",
    "lod_tensor_array",
    "run_op",
    "run_op_tensors",
    "save_inference_model",
    "selected_rows",
    "sparse_coo_tensor",
    "sparse_csr_tensor",
]


def __getattr__(name: str):
    # the backward pass (and the grad-op machinery it imports) loads when first asked for
    if name == "append_backward":
        from fluid_compat.backward import append_backward

        return append_backward
    if name == "inference":  # Paddle Inference's API (fluid_compat/inference.py)
        import importlib

        return importlib.import_module("fluid_compat.inference")
    if name == "describe_program":  # a program's metadata without running it
        from fluid_compat.tools.inspect_model import describe

        return describe
    raise AttributeError(f"module 'fluid_compat' has no attribute {name!r}")
