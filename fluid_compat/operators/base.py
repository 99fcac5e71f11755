"""OperatorBase: one legacy op (type, slots, checked attributes, OpInfo) and how it runs.

Operator classes with a ``run_impl`` of their own (control flow, tensor arrays, print ...)
subclass it directly; OperatorWithKernel (fluid_compat.operators.with_kernel) adds kernel
selection.  This module imports nothing of the kernel registries, so an operator class can be
defined in any module, fluid kernel modules included, without an import cycle.
"""

from __future__ import annotations

from collections.abc import Mapping

from fluid_compat.framework.scope import Scope
from opmakers.attr_types import attr_var_names
from phi.common.place import Place
from phi.core.errors import PhiError

__all__ = ["OperatorBase"]


class OperatorBase:
    """One legacy op: type, slot -> variable names, checked attributes, its OpInfo."""

    def __init__(self, type_: str, inputs: Mapping[str, tuple[str, ...]],
                 outputs: Mapping[str, tuple[str, ...]], attrs: dict, info) -> None:
        self.type = type_
        self.inputs = dict(inputs)
        self.outputs = dict(outputs)
        self.attrs = attrs
        self.info = info
        # As Paddle's OperatorBase: an attribute that names variables (VAR / VARS, written where
        # the OpProto marks it support_tensor) is also an input of the attribute's name, so its
        # tensors are read at every run (never a value fixed when the op was made) and the
        # executor sees the use of those variables.
        self.attr_vars = attr_var_names(attrs)
        for name, names in self.attr_vars.items():
            self.inputs.setdefault(name, names)

    def input(self, slot: str) -> str | None:
        names = self.inputs.get(slot)
        return names[0] if names else None

    def run(self, scope: Scope, place: Place) -> None:
        try:
            self.run_impl(scope, place)
        except PhiError as exc:
            if getattr(exc, "_op_tagged", False):
                raise
            tagged = type(exc)(f"{exc.message} [operator < {self.type} > error]")
            tagged._op_tagged = True  # type: ignore[attr-defined]
            raise tagged from exc

    def run_impl(self, scope: Scope, place: Place) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        ins = ", ".join(f"{k}={list(v)}" for k, v in self.inputs.items() if v)
        outs = ", ".join(f"{k}={list(v)}" for k, v in self.outputs.items() if v)
        return f"{self.type}({ins}) -> ({outs})"
