"""Control-flow operators: while, conditional_block, select_input, select_output.

They run no kernel: ``while`` and ``conditional_block`` run the ops of their sub-block (attribute
``sub_block``) in a kid scope of the scope they run in, so that the sub-block's temporaries vanish
with it while writes to variables of enclosing blocks land where those variables live.  The
sub-block's operators are made once (checked like block 0's) and keep their own cached kernel
decisions across iterations and runs.
"""

from __future__ import annotations

import numpy as np
from phi.common.place import Place
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, NotFound, PreconditionNotMet
from phi.core.tensor import DenseTensor

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.framework.scope import Scope
from fluid_compat.operators.with_kernel import OperatorBase

__all__ = ["WhileOp", "ConditionalBlockOp", "SelectInputOp", "SelectOutputOp"]


def _tensor(op, scope: Scope, slot: str, index: int = 0) -> DenseTensor:
    names = op.inputs.get(slot, ())
    if len(names) <= index:
        raise InvalidArgument(f"Operator `{op.type}`: input `{slot}` is missing.")
    var = scope.find_var(names[index])
    value = None if var is None else var.value
    if not isinstance(value, DenseTensor) or value.data is None:
        raise PreconditionNotMet(f"Operator `{op.type}`: input `{slot}` (`{names[index]}`) "
                                 "holds no tensor.")
    return value


def _scalar_bool(op, t: DenseTensor, slot: str) -> bool:
    host = np.asarray(t.numpy())
    if host.size != 1:
        raise InvalidArgument(f"Operator `{op.type}`: the condition `{slot}` must hold one "
                              f"element, it holds {host.size} (shape {list(host.shape)}).")
    return bool(host.reshape(()))


class _SubBlockOp(OperatorBase):
    """An operator that runs the ops of its ``sub_block``."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self._sub_ops: list | None = None

    def bind_block(self, block, label: str, *, pins=None, shadow=None) -> None:
        """Make (and check) the operators of the sub-block; called when the program is planned."""
        from fluid_compat.operators.build import make_operator

        program = block.program
        index = self.attrs.get("sub_block")
        if not isinstance(index, int) or not 0 <= index < program.num_blocks:
            raise InvalidArgument(f"{label}: attribute sub_block={index!r} names no block of "
                                  f"the program ({program.num_blocks} blocks).")
        sub = program.block(index)
        self._sub_ops = [make_operator(i, d, where=f"{label} > block {index} ", pins=pins,
                                       shadow=shadow) for i, d in enumerate(sub.ops)]

    def _run_sub_block(self, scope: Scope, place: Place) -> None:
        if self._sub_ops is None:
            raise PreconditionNotMet(f"Operator `{self.type}` runs a sub-block and needs its "
                                     "program: run it through an Executor.")
        kid = scope.new_scope()
        try:
            for op in self._sub_ops:
                op.run(kid, place)
        finally:
            scope.delete_scope(kid)


class ConditionalBlockOp(_SubBlockOp):
    """Runs the sub-block when ``Cond`` holds: its one element (is_scalar_condition), or else
    when every ``Cond`` tensor is non-empty (Paddle's ConditionalBlockOp)."""

    def run_impl(self, scope: Scope, place: Place) -> None:
        if self.attrs.get("is_scalar_condition"):
            run = _scalar_bool(self, _tensor(self, scope, "Cond"), "Cond")
        else:
            run = all(_tensor(self, scope, "Cond", i).numel != 0
                      for i in range(len(self.inputs.get("Cond", ()))))
        if run:
            self._run_sub_block(scope, place)


class WhileOp(_SubBlockOp):
    """Runs the sub-block while ``Condition`` (one bool element) holds; the sub-block
    recomputes it.  ``max_iterations`` guards against a condition that never turns false."""

    max_iterations = 10_000_000

    def run_impl(self, scope: Scope, place: Place) -> None:
        steps = 0
        while _scalar_bool(self, _tensor(self, scope, "Condition"), "Condition"):
            self._run_sub_block(scope, place)
            steps += 1
            if steps >= self.max_iterations:
                raise PreconditionNotMet(f"Operator `while` ran {steps} iterations: its "
                                         "Condition never turned false.")


def _mask(op, scope: Scope, n: int) -> int:
    host = np.asarray(_tensor(op, scope, "Mask").numpy()).reshape(-1)
    if host.size != 1:
        raise InvalidArgument(f"Operator `{op.type}`: Mask must hold one element, it holds "
                              f"{host.size}.")
    k = int(host[0])
    if not 0 <= k < n:
        raise InvalidArgument(f"Operator `{op.type}`: Mask {k} is out of range [0, {n}).")
    return k


class SelectInputOp(OperatorBase):
    """Out = X[Mask] (the branch outputs of a cond are merged by it)."""

    def run_impl(self, scope: Scope, place: Place) -> None:
        xs = self.inputs.get("X", ())
        chosen = _tensor(self, scope, "X", _mask(self, scope, len(xs)))
        out = self.outputs["Out"][0]
        var = scope.find_var(out) or scope.var(out)
        var.value = chosen


class SelectOutputOp(OperatorBase):
    """Out[Mask] = X."""

    def run_impl(self, scope: Scope, place: Place) -> None:
        outs = self.outputs.get("Out", ())
        name = outs[_mask(self, scope, len(outs))]
        var = scope.find_var(name) or scope.var(name)
        var.value = _tensor(self, scope, "X")


class AssertOp(OperatorBase):
    """Raises when Cond (one bool) is false, naming the condition and summarising Data (the
    first ``summarize`` values of each, all with -1), as Paddle's AssertOp."""

    def run_impl(self, scope, place) -> None:
        names = self.inputs.get("Cond", ())
        var = scope.find_var(names[0]) if names else None
        cond = getattr(var, "value", None)
        if not isinstance(cond, DenseTensor) or cond.data is None:
            raise NotFound("assert: Input(Condition) of AssertOp is not initialized.")
        if cond.numel != 1 or cond.dtype is not DataType.BOOL:
            raise InvalidArgument(f"assert: The numel of Input(Condition) of AssertOp must be 1 "
                                  f"and its dtype bool, got dims {list(cond.dims)} "
                                  f"{cond.dtype}.")
        if bool(np.asarray(cond.numpy()).reshape(-1)[0]):
            return
        summarize = int(self.attrs.get("summarize", -1))
        lines = []
        for name in self.inputs.get("Data", ()):
            v = scope.find_var(name)
            t = getattr(v, "value", None)
            if isinstance(t, DenseTensor) and t.data is not None:
                flat = np.asarray(t.numpy()).reshape(-1)
                shown = flat if summarize < 0 else flat[:summarize]
                lines.append(f"{name}: dims {list(t.dims)} {t.dtype} data "
                             f"{shown.tolist()}")
        detail = ("; " + "; ".join(lines)) if lines else ""
        raise InvalidArgument(f"The condition variable '{names[0]}' of AssertOp must be true, "
                              f"but received false{detail}")


op_hooks("assert", operator_class=AssertOp)
op_hooks("while", operator_class=WhileOp)
# Switch (piecewise_decay) writes its cases with an empty Input: Paddle runs them
op_hooks("conditional_block", operator_class=ConditionalBlockOp, may_be_empty=frozenset({"Input"}))
op_hooks("select_input", operator_class=SelectInputOp)
op_hooks("select_output", operator_class=SelectOutputOp)
