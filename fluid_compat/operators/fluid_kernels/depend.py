"""The operator class of depend and its inputs that may be empty (hooks)."""

from __future__ import annotations

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.base import OperatorBase
from phi.core.errors import NotFound, PreconditionNotMet

__all__ = ["DependOp"]


class DependOp(OperatorBase):
    """X and Out are one variable: checks that, does nothing else."""

    def run_impl(self, scope, place) -> None:
        x, out = self.input("X"), (self.outputs.get("Out") or (None,))[0]
        if x is None:
            raise NotFound("depend: Input(X) of depend is not found.")
        if out is None:
            raise NotFound("depend: Output(Out) of depend is not found.")
        if x != out:
            raise PreconditionNotMet(f"depend: Input(X) and Output(Out) variable should be the "
                                     f"same, but got Input is {x} and Output is {out}.")


# Paddle runs depend with an empty Dep (the op then only checks X is Out)
op_hooks("depend", operator_class=DependOp, may_be_empty=frozenset({"Dep"}))

