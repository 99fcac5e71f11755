"""InferMeta: pure functions from input metas and attributes to output metas.

Each is named as the snake_case of the CamelCase name that ``phi/api/ops.yaml`` uses
(``ElementwiseInferMeta`` -> ``elementwise_infer_meta``).  Parameters follow the YAML
``infer_meta: param`` list (input metas, attribute values), then the output MetaTensor(s).  The
same functions serve fluid InferShape: dims of -1 are unknown sizes, and an optional keyword
``config=MetaConfig(is_runtime=False)`` marks compile time.

The rule (where a function lives), by arity as Paddle arranges paddle/phi/infermeta:

1. a function listed in :data:`PLACED` goes to that module (Paddle's own placement where it is
   not the count below: ``where_infer_meta`` takes three tensors but sits in multiary ...);
2. else a grad op's (``*_grad_infer_meta``) goes to ``backward``, a fused op's (``fused_*``,
   ``fusion_*``) to ``fusion``;
3. else the tensor inputs that its YAML row passes it (the tensors among ``infer_meta: param``)
   decide: none -> ``nullary``, one -> ``unary``, two -> ``binary``, three -> ``ternary``, more,
   or a list of tensors (``Tensor[]``) -> ``multiary``.

A function that no YAML row names (one that only fluid InferShape calls) goes by the tensor
parameters of its signature in the same way.  Helpers shared by several modules or with the
kernels (``MetaConfig``, ``decided_by_kernel``, the dims rules) are in ``funcs``.  A module exists
only when the rule sends a function to it (there are no grad InferMetas yet: no ``backward``).

Importing this package imports none of its modules.  :func:`find` (what phi.api's
``kernel_infer_meta`` calls with a row's InferMeta name and tensor input types) imports just the
module the rule names; an attribute ``phi.infermeta.<name>`` looks in ``funcs``, then in the
arity modules in turn, importing each until one defines the name.  tests/phi/
test_infermeta_layout.py checks that every function a YAML row names is where the rule says.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

__all__: list[str]  # every public name of the modules below (imports them on first use)

ARITY = ("nullary", "unary", "binary", "ternary", "multiary", "backward", "fusion")
"""The modules the rule sends InferMeta functions to (those that exist: see :func:`modules`)."""

PLACED: dict[str, tuple[str, ...]] = {
    "binary": ("index_add_infer_meta",),
    "fusion": ("fc_infer_meta", "self_dp_attention_infer_meta"),
    "multiary": ("float_status_infer_meta", "fused_adam_infer_meta", "psroi_pool_infer_meta",
                 "sigmoid_cross_entropy_with_logits_infer_meta", "where_infer_meta"),
    "unary": ("einsum_infer_meta",),
}
"""Functions that Paddle places elsewhere than their tensor inputs' count says (module ->
names; float_status_infer_meta takes any number of tensors, its rows pass none or one)."""

_PLACED = {name: module for module, names in PLACED.items() for name in names}
_SEARCH = ("funcs", "unary", "binary", "ternary", "multiary", "nullary", "fusion", "backward")
_PRESENT: dict[str, bool] = {}


def module_of(name: str, inputs: Iterable[str]) -> str:
    """The module (``"unary"`` ...) the rule names for the InferMeta function ``name`` of a YAML
    row whose tensor inputs (the tensors among ``infer_meta: param``, in order) have the types
    ``inputs`` (``"Tensor"`` or ``"Tensor[]"``)."""
    placed = _PLACED.get(name)
    if placed is not None:
        return placed
    if name.endswith("_grad_infer_meta"):
        return "backward"
    if name.startswith(("fused_", "fusion_")):
        return "fusion"
    inputs = tuple(inputs)
    if "Tensor[]" in inputs:
        return "multiary"
    return ("nullary", "unary", "binary", "ternary")[len(inputs)] if len(inputs) < 4 else \
        "multiary"


def _load(module: str):
    """The package's module ``module`` imported, or None when it does not exist."""
    if _PRESENT.get(module) is False:
        return None
    try:
        found = importlib.import_module(f"{__name__}.{module}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{module}":
            raise
        _PRESENT[module] = False
        return None
    _PRESENT[module] = True
    return found


def _present(module: str) -> bool:
    found = _PRESENT.get(module)
    if found is None:
        import importlib.util

        found = importlib.util.find_spec(f"{__name__}.{module}") is not None
        _PRESENT[module] = found
    return found


def modules() -> tuple[str, ...]:
    """The modules of the package that exist (``funcs`` first, then the arity modules)."""
    return tuple(m for m in ("funcs", *ARITY) if _present(m))


def find(name: str, inputs: Iterable[str]):
    """The InferMeta function ``name`` of a YAML row (see :func:`module_of`) from the module the
    rule names, importing only that module; None when that module does not define it."""
    found = _load(module_of(name, inputs))
    return None if found is None else getattr(found, name, None)


def __getattr__(name: str) -> Any:
    if name == "__all__":
        names = sorted({n for m in modules()
                        for n in importlib.import_module(f"{__name__}.{m}").__all__})
        globals()["__all__"] = names
        return names
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name in _SEARCH:  # a submodule as an attribute (``phi.infermeta.unary``)
        found = _load(name)
        if found is not None:
            return found
    elif not name.startswith("_"):
        for module in _SEARCH:
            mod = _load(module)
            if mod is not None and name in mod.__all__:
                value = getattr(mod, name)
                globals()[name] = value  # the next lookup is a plain attribute
                return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__getattr__("__all__")))
