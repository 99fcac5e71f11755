"""Loading and saving inference models in Paddle's formats.

``load_inference_model(path_prefix)`` accepts what Paddle writes:

* ``<prefix>.pdmodel`` + ``<prefix>.pdiparams`` (``paddle.static.save_inference_model``,
  ``paddle.jit.save``);
* a directory with ``__model__`` and either ``__params__`` (combined) or one file per parameter
  (the older ``fluid.io.save_inference_model``).

Parameters are checked against the program (count, dtype, shape) before anything is written to
the scope: a bad file leaves the scope as it was.
"""

from __future__ import annotations

import os
from pathlib import Path

from phi.core.errors import NotFound
from phi.core.tensor import DenseTensor

from fluid_compat.executor import Executor, Program, global_scope
from fluid_compat.framework import ProgramDesc
from fluid_compat.framework.scope import Scope
from fluid_compat.framework.tensor_io import (
    combined_param_vars,
    load_combined_params,
    load_separate_params,
    save_combined_params,
)

__all__ = ["load", "load_inference_model", "load_vars", "resolve_model_files", "save",
           "save_inference_model", "save_vars"]


def resolve_model_files(path_prefix: str | os.PathLike) -> tuple[Path, Path | None, bool]:
    """(program file, params file or directory, combined?) for a model prefix or directory."""
    prefix = Path(path_prefix)
    if prefix.is_dir():
        model = prefix / "__model__"
        if not model.is_file():
            raise NotFound(f"no `__model__` in model directory '{prefix}'.")
        params = prefix / "__params__"
        if params.is_file():
            return model, params, True
        return model, prefix, False
    model = prefix.with_name(prefix.name + ".pdmodel")
    if not model.is_file():
        raise NotFound(f"model file '{model}' not found (give the path prefix without "
                       "'.pdmodel', or a directory holding __model__).")
    params = prefix.with_name(prefix.name + ".pdiparams")
    return model, params if params.is_file() else None, True


def load_inference_model(path_prefix: str | os.PathLike, executor: Executor | None = None,
                         scope: Scope | None = None) -> list:
    """``[program, feed_target_names, fetch_target_names]``; parameters loaded into ``scope``
    (default: the global scope)."""
    del executor  # accepted for Paddle's signature; loading needs no device
    scope = global_scope() if scope is None else scope
    model, params, combined = resolve_model_files(path_prefix)
    desc = ProgramDesc.load(model)
    program = Program(desc)
    wanted = combined_param_vars(desc)
    if wanted:
        if params is None:
            raise NotFound(f"the program '{model}' has {len(wanted)} parameters but there is no "
                           f"parameter file beside it ('{model.with_suffix('.pdiparams')}').")
        loaded = (load_combined_params(str(params), desc) if combined
                  else load_separate_params(str(params), desc))
        # every record checked by the loader: only now touch the scope
        for name, (array, lod) in loaded.items():
            scope.var(name).value = DenseTensor.from_numpy(array)
            scope.find_var(name).value.lod = tuple(tuple(level) for level in lod)
    return [program, program.feed_target_names(), program.fetch_target_names()]


def save_inference_model(path_prefix: str | os.PathLike, program: Program,
                         scope: Scope | None = None) -> None:
    """Write ``<prefix>.pdmodel`` and ``<prefix>.pdiparams`` from a program and a scope."""
    scope = global_scope() if scope is None else scope
    prefix = Path(path_prefix)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    params = {}
    for var in combined_param_vars(program.desc):
        v = scope.find_var(var.name)
        if v is None or not isinstance(v.value, DenseTensor) or v.value.data is None:
            raise NotFound(f"parameter `{var.name}` holds no tensor in the scope.")
        params[var.name] = (v.value.numpy(), v.value.lod)
    save_combined_params(str(prefix.with_name(prefix.name + ".pdiparams")), program.desc, params)
    program.desc.save(prefix.with_name(prefix.name + ".pdmodel"))


# training checkpoints (paddle.static.save / load, save_vars / load_vars): fluid_compat.checkpoint
from fluid_compat.checkpoint import load, load_vars, save, save_vars  # noqa: E402
