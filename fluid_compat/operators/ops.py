"""The regular hooks of legacy ops, as data: ``op_hooks.yaml`` (one row per op type) read here.

A row says which input (or attribute) decides the op's expected kernel type, which inputs stay
where they are (GetKernelTypeForVar), which output shares which input's LoD, which output is
which input's variable, and how many variables a duplicable output holds; the file's header
describes the keys.  Hooks that are not one of these rules are code, in the op's module of
fluid_compat.operators.fluid_kernels (loaded with the op's first use).  The expected kernel
types are checked against the ``expected_kernel_key`` Paddle recorded for every corpus case
(tests/fluid_compat).

Parsing the YAML costs more than a cold start can spare, so the rows come from
``_op_hooks_cache.json`` (tools/gen_yaml_caches.py writes it; a test fails when it is stale)
while its checksum matches the YAML's text; an edited YAML is parsed instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from fluid_compat.framework.op_kernel_type import OpKernelType
from fluid_compat.framework.op_registry import declare_hooks_lazily, op_hooks
from fluid_compat.operators.expected_kernel import (
    expected_fixed,
    expected_from_attr,
    expected_from_var,
    expected_on_x_place,
    expected_onednn,
    expected_promote,
)
from phi.common.data_type import DataType
from phi.core.checksum import text_checksum
from phi.core.errors import InvalidArgument
from phi.core.layout import GRAD_SUFFIXES

__all__ = ["HOOKS_FILE", "counts_like", "hook_rows", "keep_where_they_are"]

HOOKS_FILE = os.path.join(os.path.dirname(__file__), "op_hooks.yaml")
CACHE_FILE = os.path.join(os.path.dirname(__file__), "_op_hooks_cache.json")


def keep_where_they_are(*slots: str):
    """GetKernelTypeForVar returning the expected type for tensor-attribute inputs: never moved
    or cast (they are read on the host to build an IntArray / Scalar)."""
    chosen = frozenset(slots)

    def hook(op, slot, tensor, expected):
        if slot in chosen:
            return expected
        return OpKernelType(expected.dtype, tensor.place, tensor.layout)

    hook.__name__ = "keep_" + "_".join(slots)
    return hook


def counts_like(**slots):
    """output_counts: each output slot holds as many variables as its input slot."""

    def counts(attrs, inputs) -> dict[str, int]:
        return {out: len(inputs.get(src) or ()) for out, src in slots.items()}

    return counts


_EXPECTED: dict[str, Callable] = {
    "var": expected_from_var,
    "promote": expected_promote,
    "attr": expected_from_attr,
    "onednn": expected_onednn,
    "fixed": lambda name: expected_fixed(DataType.from_any(name)),
    "x_place": lambda: expected_on_x_place(),
    "x_place_or_cpu": lambda: expected_on_x_place(force_cpu_attr=True),
}


def parse_hook_rows(text: str) -> dict[str, dict]:
    """The rows of an op_hooks.yaml text (yaml's C loader when there is one)."""
    import yaml

    rows = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return rows or {}


def hook_rows() -> dict[str, dict]:
    """op type -> its row of op_hooks.yaml (from the cache while it matches the text)."""
    import json

    with open(HOOKS_FILE, encoding="utf-8") as f:
        text = f.read()
    try:
        with open(CACHE_FILE, encoding="utf-8") as f:
            cache = json.load(f)
    except (OSError, ValueError):
        cache = None
    if cache is not None and cache.get("checksum") == text_checksum(text):
        return cache["rows"]
    return parse_hook_rows(text)


def _expected(op: str, rule: str, made: dict) -> Callable:
    kind, *args = rule.split()
    found = made.get(rule)
    if found is None:
        make = _EXPECTED.get(kind)
        if make is None:
            raise InvalidArgument(f"op_hooks.yaml: {op}: unknown expected rule {rule!r} "
                                  f"(one of {', '.join(_EXPECTED)}).")
        found = made[rule] = make(*args)
    return found


def _pairs(value: Mapping) -> dict:
    return {out: tuple(src) if isinstance(src, list) else src for out, src in value.items()}


def declare_rows(rows: Mapping[str, Mapping]) -> None:
    """op_hooks() for each row (one hook object per distinct rule)."""
    made: dict = {}
    for op, row in rows.items():
        hooks = {}
        for key, value in row.items():
            if key == "expected":
                hooks["get_expected_kernel_type"] = _expected(op, value, made)
            elif key == "keep":
                hooks["get_kernel_type_for_var"] = keep_where_they_are(*value)
            elif key in ("share_lod", "inplace"):
                hooks[key] = _pairs(value)
            elif key == "counts":
                hooks["output_counts"] = counts_like(**value)
            else:
                raise InvalidArgument(f"op_hooks.yaml: {op}: unknown key {key!r}.")
        op_hooks(op, **hooks)


def _is_grad(op: str) -> bool:
    return op.endswith(GRAD_SUFFIXES) or "_grad_" in op or op.endswith("_grad2")


def _declare() -> None:
    """The forward ops' rows now; the grad ops' when the first grad op's OpInfo is asked for
    (a forward run declares none of them)."""
    rows = hook_rows()
    declare_rows({op: row for op, row in rows.items() if not _is_grad(op)})
    grads = {op: row for op, row in rows.items() if _is_grad(op)}
    declare_hooks_lazily(grads, lambda: declare_rows(grads))


_declare()
