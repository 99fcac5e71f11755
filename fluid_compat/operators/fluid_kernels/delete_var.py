"""The operator class hook of delete_var."""

from __future__ import annotations

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.base import OperatorBase

__all__ = ["DeleteVarOp"]


class DeleteVarOp(OperatorBase):
    """Releases the values of the variables X names that live in the op's own scope."""

    def run_impl(self, scope, place) -> None:
        for name in self.inputs.get("X", ()):
            var = scope.find_local_var(name)
            if var is not None:
                var.value = None


op_hooks("delete_var", operator_class=DeleteVarOp)

