"""Control-flow operators: while, conditional_block(_infer), pylayer, select_input, select_output.

They run no kernel: they run the ops of a sub-block in a kid scope of the scope they run in, as
Paddle 2.6.2's executor does (its BuildScopeForControlFlowOp / Executor::CreateVariables):

* every non-persistable variable the sub-block *declares* is created in the kid scope before the
  block runs (a tensor array as an empty array, a tensor uninitialized), so an op of a nested
  block that writes such a variable writes the kid's copy, and the sub-block's later ops (a
  ``select_input`` after a ``conditional_block``) see it;
* a variable the sub-block uses but does not declare is found through the parent chain: writes
  land where it lives (a loop variable of block 0, an array of the while body);
* ``while`` with ``is_test`` (inference programs) runs every step in one kid scope and, before each
  step, clears the LoD of the scope's tensors and empties its tensor arrays; without ``is_test``
  each step gets a fresh kid scope (Paddle keeps them for the backward pass; nothing here reads
  them, so each is dropped after its step);
* ``conditional_block`` / ``conditional_block_infer`` / ``pylayer`` run their block once in a
  fresh kid scope, dropped afterwards.

The sub-block's operators are made once (checked like block 0's) and keep their own cached
kernel decisions across iterations and runs.  A ``while`` stops with PreconditionNotMet after
``FLAGS_while_max_steps`` steps, and at once when its body never writes its Condition (the loop
could never end): never a hang.
"""

from __future__ import annotations

import numpy as np
from phi.common.place import Place
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, NotFound, PreconditionNotMet
from phi.core.tensor import DenseTensor
from phi.flags import FLAGS, define_flag

from fluid_compat.framework import VarType
from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.framework.scope import LoDTensorArray, Scope
from fluid_compat.operators.with_kernel import OperatorBase

__all__ = ["ConditionalBlockOp", "PyLayerOp", "SelectInputOp", "SelectOutputOp", "SubBlockOp",
           "WhileOp", "block_label", "input_value"]

define_flag("FLAGS_while_max_steps", int, 1_000_000,
            "The most steps one run of a `while` op may take; more raise PreconditionNotMet "
            "(a loop whose condition never turns false fails instead of hanging).")

#: variable types a sub-block's scope does not create (feed / fetch lists, step scopes, RAW)
_NO_VALUE = (VarType.FEED_MINIBATCH, VarType.FETCH_LIST, VarType.RAW, VarType.STEP_SCOPES)


def block_label(op) -> str:
    """``op #i `type``` with the blocks it sits in (``while`` > block 1 op #3 ...), for error
    messages; the label make_operator gave the op, or its type."""
    return getattr(op, "label", None) or f"`{op.type}`"


def input_value(op, scope: Scope, slot: str, index: int = 0):
    """The value of input ``slot`` [index]: a DenseTensor holding data or a LoDTensorArray;
    PreconditionNotMet naming op and variable otherwise."""
    names = op.inputs.get(slot, ())
    if len(names) <= index:
        raise InvalidArgument(f"Operator {block_label(op)}: input `{slot}` is missing.")
    var = scope.find_var(names[index])
    value = None if var is None else var.value
    if isinstance(value, LoDTensorArray):
        return value
    if not isinstance(value, DenseTensor) or value.data is None:
        raise PreconditionNotMet(f"Operator {block_label(op)}: input `{slot}` "
                                 f"(`{names[index]}`) holds no tensor.")
    return value


def _tensor(op, scope: Scope, slot: str, index: int = 0) -> DenseTensor:
    value = input_value(op, scope, slot, index)
    if not isinstance(value, DenseTensor):
        raise InvalidArgument(f"Operator {block_label(op)}: input `{slot}` "
                              f"(`{op.inputs[slot][index]}`) is a tensor array, a tensor was "
                              "expected.")
    return value


def _scalar_bool(op, t: DenseTensor, slot: str) -> bool:
    host = np.asarray(t.numpy())
    if host.size != 1:
        raise InvalidArgument(f"Operator {block_label(op)}: the condition `{slot}` must hold one "
                              f"element, it holds {host.size} (shape {list(host.shape)}).")
    return bool(host.reshape(()))


def _written_names(ops) -> set[str]:
    """Every variable the ops (and the ops of their sub-blocks) write."""
    out: set[str] = set()
    for op in ops:
        for names in op.outputs.values():
            out.update(names)
        out |= _written_names(getattr(op, "sub_ops", None) or ())
    return out


def referenced_names(ops) -> set[str]:
    """Every variable the ops (and the ops of their sub-blocks) read or write: what an
    enclosing block must keep alive while a control-flow op runs them."""
    out: set[str] = set()
    for op in ops:
        for names in list(op.inputs.values()) + list(op.outputs.values()):
            out.update(names)
        out |= referenced_names(getattr(op, "sub_ops", None) or ())
    return out


class SubBlockOp(OperatorBase):
    """An operator that runs the ops of a sub-block (attribute ``sub_block``, or for
    ``pylayer`` the first of ``blocks``)."""

    block_attr = "sub_block"

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.sub_ops: list | None = None
        self._locals: tuple[tuple[str, VarType], ...] = ()
        self._persistables: tuple[str, ...] = ()

    def _block_index(self):
        return self.attrs.get(self.block_attr)

    def bind_block(self, block, label: str, *, pins=None, shadow=None) -> None:
        """Make (and check) the operators of the sub-block; called when the program is planned."""
        from fluid_compat.operators.build import make_operator

        program = block.program
        index = self._block_index()
        if not isinstance(index, int) or not 0 <= index < program.num_blocks:
            raise InvalidArgument(f"{label}: attribute {self.block_attr}={index!r} names no "
                                  f"block of the program ({program.num_blocks} blocks).")
        sub = program.block(index)
        self._locals = tuple((name, v.type) for name, v in sub.vars.items()
                             if not v.persistable and v.type not in _NO_VALUE)
        self._persistables = tuple(name for name, v in sub.vars.items() if v.persistable)
        self.sub_ops = [make_operator(i, d, where=f"{label} > block {index} ", pins=pins,
                                      shadow=shadow) for i, d in enumerate(sub.ops)]

    def _check_bound(self) -> None:
        if self.sub_ops is None:
            raise PreconditionNotMet(f"Operator `{self.type}` runs a sub-block and needs its "
                                     "program: run it through an Executor.")

    def new_block_scope(self, scope: Scope) -> Scope:
        """A kid of ``scope`` holding the sub-block's own variables (Paddle's
        BuildScopeForControlFlowOp); its persistables are made in the root scope if absent."""
        kid = scope.new_scope()
        for name, var_type in self._locals:
            kid.var(name).value = LoDTensorArray() if var_type is VarType.LOD_TENSOR_ARRAY \
                else None
        if self._persistables:
            root = scope
            while root.parent is not None:
                root = root.parent
            for name in self._persistables:
                if root.find_local_var(name) is None:
                    root.var(name)
        return kid

    def run_ops(self, kid: Scope, place: Place) -> None:
        for op in self.sub_ops:
            op.run(kid, place)

    def run_once(self, scope: Scope, place: Place) -> None:
        """Run the sub-block once in a fresh kid scope, dropped afterwards."""
        self._check_bound()
        kid = self.new_block_scope(scope)
        try:
            self.run_ops(kid, place)
        finally:
            scope.delete_scope(kid)


class ConditionalBlockOp(SubBlockOp):
    """Runs the sub-block when ``Cond`` holds: its one element (is_scalar_condition), or else
    when every ``Cond`` tensor is non-empty (Paddle's ConditionalBlockOp); also
    ``conditional_block_infer``, which differs only in keeping no scope for a backward pass."""

    def run_impl(self, scope: Scope, place: Place) -> None:
        if self.attrs.get("is_scalar_condition"):
            run = _scalar_bool(self, _tensor(self, scope, "Cond"), "Cond")
        else:
            run = all(_tensor(self, scope, "Cond", i).numel != 0
                      for i in range(len(self.inputs.get("Cond", ()))))
        if run:
            self.run_once(scope, place)


class PyLayerOp(SubBlockOp):
    """``pylayer`` (paddle.static.nn.static_pylayer): runs its forward block, the first of the
    ``blocks`` attribute (the second is its backward block, for training)."""

    block_attr = "blocks"

    def _block_index(self):
        blocks = self.attrs.get("blocks")
        return blocks[0] if isinstance(blocks, (list, tuple)) and blocks else None

    def run_impl(self, scope: Scope, place: Place) -> None:
        self.run_once(scope, place)


class WhileOp(SubBlockOp):
    """Runs the sub-block while ``Condition`` (one bool element) holds; the sub-block
    recomputes it.  Scopes as Paddle's WhileOp keeps them (module doc)."""

    def bind_block(self, block, label: str, *, pins=None, shadow=None) -> None:
        super().bind_block(block, label, pins=pins, shadow=shadow)
        self._condition_written = self.input("Condition") in _written_names(self.sub_ops)

    def _condition(self, scope: Scope) -> bool:
        t = _tensor(self, scope, "Condition")
        if t.dtype is not DataType.BOOL:
            raise InvalidArgument(f"Operator {block_label(self)}: Condition "
                                  f"(`{self.input('Condition')}`) must be a bool tensor, got "
                                  f"{t.dtype}.")
        return _scalar_bool(self, t, "Condition")

    def run_impl(self, scope: Scope, place: Place) -> None:
        self._check_bound()
        if not self._condition(scope):
            return
        if not self._condition_written:
            raise PreconditionNotMet(
                f"Operator {block_label(self)}: its Condition `{self.input('Condition')}` is "
                "true and no op of its body writes it: the loop would never end. Nothing of "
                "the loop was run.")
        limit = int(FLAGS["FLAGS_while_max_steps"])
        steps = 0
        if self.attrs.get("is_test"):
            kid = self.new_block_scope(scope)
            try:
                while True:
                    for name in kid.local_var_names():
                        var = kid.find_local_var(name)
                        value = var.value
                        if isinstance(value, LoDTensorArray):
                            value.clear()
                        elif isinstance(value, DenseTensor) and value.lod:
                            var.value = DenseTensor(value.data, value.dtype, value.place,
                                                    value.layout, (), value._dims)
                    self.run_ops(kid, place)
                    steps += 1
                    if not self._condition(scope):
                        return
                    self._check_steps(steps, limit)
            finally:
                scope.delete_scope(kid)
        while True:
            self.run_once(scope, place)
            steps += 1
            if not self._condition(scope):
                return
            self._check_steps(steps, limit)

    def _check_steps(self, steps: int, limit: int) -> None:
        if steps >= limit:
            raise PreconditionNotMet(
                f"Operator {block_label(self)} ran {steps} steps and its Condition "
                f"`{self.input('Condition')}` still holds: stopped at FLAGS_while_max_steps="
                f"{limit} (raise the flag for a longer loop).")


def _mask(op, scope: Scope, n: int) -> int:
    t = _tensor(op, scope, "Mask")
    host = np.asarray(t.numpy()).reshape(-1)
    if host.size != 1:
        raise InvalidArgument(f"Operator {block_label(op)}: Mask must hold one element, it "
                              f"holds {host.size}.")
    if not np.issubdtype(host.dtype, np.integer) and host.dtype != np.bool_:
        raise InvalidArgument(f"Operator {block_label(op)}: Mask (`{op.input('Mask')}`) must be "
                              f"an integer tensor, got {t.dtype}.")
    k = int(host[0])
    if not 0 <= k < n:
        raise InvalidArgument(f"Operator {block_label(op)}: Mask {k} is out of range [0, {n}).")
    return k


def _assigned(value):
    """What Paddle's AssignFunctor leaves in the output: the same tensor (tensors are never
    written in place here) or a copy of the array's list."""
    return LoDTensorArray(value) if isinstance(value, LoDTensorArray) else value


class SelectInputOp(OperatorBase):
    """Out = X[Mask] (the branch outputs of a cond are merged by it): a tensor or an array."""

    def run_impl(self, scope: Scope, place: Place) -> None:
        xs = self.inputs.get("X", ())
        chosen = input_value(self, scope, "X", _mask(self, scope, len(xs)))
        out = self.outputs["Out"][0]
        var = scope.find_var(out) or scope.var(out)
        var.value = _assigned(chosen)


class SelectOutputOp(OperatorBase):
    """Out[Mask] = X: a tensor or an array."""

    def run_impl(self, scope: Scope, place: Place) -> None:
        outs = self.outputs.get("Out", ())
        name = outs[_mask(self, scope, len(outs))]
        var = scope.find_var(name) or scope.var(name)
        var.value = _assigned(input_value(self, scope, "X"))


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
op_hooks("conditional_block_infer", operator_class=ConditionalBlockOp,
         may_be_empty=frozenset({"Input"}))
op_hooks("pylayer", operator_class=PyLayerOp, may_be_empty=frozenset({"Input"}))
op_hooks("select_input", operator_class=SelectInputOp)
op_hooks("select_output", operator_class=SelectOutputOp)
