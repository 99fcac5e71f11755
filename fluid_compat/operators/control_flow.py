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
  step, empties its tensor arrays and drops its tensors' values (Paddle clears their LoD, and its
  garbage collector has freed every body-local tensor after its last use in the step, except
  those in ``skip_eager_deletion_vars``, whose LoD alone is cleared); without ``is_test``
  each step gets a fresh kid scope (Paddle keeps them for the backward pass; nothing here reads
  them, so each is dropped after its step);
* ``conditional_block`` / ``conditional_block_infer`` / ``pylayer`` run their block once in a
  fresh kid scope, dropped afterwards.

Training programs: a ``while`` (not is_test) or ``conditional_block`` whose step scopes a
``while_grad`` / ``conditional_block_grad`` of the program reads keeps them, as Paddle does, until
its next run; a while step scope also keeps, under their own names, the values its X inputs had
when the step began (Paddle's ``@TMP_COPY`` rename; parameters and variables an op of the body
both reads and writes are not copied).  The grad ops run their grad block in those scopes, in
reverse step order, and move the gradients out (summed over steps for while).

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
from fluid_compat.operators.base import OperatorBase
from fluid_compat.operators.op_values import copied_tensor, op_name, zeros_like
from opmakers.grad import EMPTY_VAR_NAME, GRAD_SUFFIX
from fluid_compat.operators.segments import SEGMENTS_FLAG, compile_segments
from fluid_compat.profiler import current as current_profiler

__all__ = ["ConditionalBlockGradOp", "ConditionalBlockOp", "PyLayerOp", "SelectInputOp",
           "SelectOutputOp", "SubBlockOp", "WhileGradOp", "WhileOp",
           "input_value", "referenced_names"]

define_flag("FLAGS_while_max_steps", int, 1_000_000,
            "The most steps one run of a `while` op may take; more raise PreconditionNotMet "
            "(a loop whose condition never turns false fails instead of hanging).")

#: variable types a sub-block's scope does not create (feed / fetch lists, step scopes, RAW)
_NO_VALUE = (VarType.FEED_MINIBATCH, VarType.FETCH_LIST, VarType.RAW, VarType.STEP_SCOPES)


def input_value(op, scope: Scope, slot: str, index: int = 0):
    """The value of input ``slot`` [index]: a DenseTensor holding data or a LoDTensorArray;
    PreconditionNotMet naming op and variable otherwise."""
    names = op.inputs.get(slot, ())
    if len(names) <= index:
        raise InvalidArgument(f"Operator {op_name(op)}: input `{slot}` is missing.")
    var = scope.find_var(names[index])
    value = None if var is None else var.value
    if isinstance(value, LoDTensorArray):
        return value
    if not isinstance(value, DenseTensor) or value.data is None:
        raise PreconditionNotMet(f"Operator {op_name(op)}: input `{slot}` "
                                 f"(`{names[index]}`) holds no tensor.")
    return value


def _tensor(op, scope: Scope, slot: str, index: int = 0) -> DenseTensor:
    value = input_value(op, scope, slot, index)
    if not isinstance(value, DenseTensor):
        raise InvalidArgument(f"Operator {op_name(op)}: input `{slot}` "
                              f"(`{op.inputs[slot][index]}`) is a tensor array, a tensor was "
                              "expected.")
    return value


def _scalar_bool(op, t: DenseTensor, slot: str) -> bool:
    host = np.asarray(t.numpy())
    if host.size != 1:
        raise InvalidArgument(f"Operator {op_name(op)}: the condition `{slot}` must hold one "
                              f"element, it holds {host.size} (shape {list(host.shape)}).")
    return bool(host.reshape(()))


def _names(ops, *, reads: bool) -> set[str]:
    """Every variable the ops (and the ops of their sub-blocks) write, and with ``reads`` also
    read."""
    out: set[str] = set()
    for op in ops:
        for names in (*op.outputs.values(), *(op.inputs.values() if reads else ())):
            out.update(names)
        out |= _names(getattr(op, "sub_ops", None) or (), reads=reads)
    return out


def referenced_names(ops) -> set[str]:
    """Every variable the ops (and the ops of their sub-blocks) read or write: what an
    enclosing block must keep alive while a control-flow op runs them."""
    return _names(ops, reads=True)


def _consumed_by(program, grad_type: str, slot: str, name: str | None) -> bool:
    """Whether an op ``grad_type`` of ``program`` reads ``name`` in ``slot`` (a forward op
    keeps its step scopes only for such a grad op)."""
    if not name:
        return False
    for block in program.blocks:
        for d in block.ops:
            if d.type == grad_type and name in d.inputs.get(slot, ()):
                return True
    return False


def _scopes_list(op, scope: Scope, slot: str, *, output: bool) -> list:
    """The list held by the STEP_SCOPES variable in ``slot`` (made empty when new)."""
    names = (op.outputs if output else op.inputs).get(slot, ())
    if not names:
        raise InvalidArgument(f"Operator {op_name(op)}: `{slot}` is missing.")
    var = scope.find_var(names[0])
    if var is None:
        if not output:
            raise NotFound(f"Operator {op_name(op)}: the step scopes `{names[0]}` are not "
                           "in the scope: run the forward op first.")
        var = scope.var(names[0])
    if not isinstance(var.value, list):
        if not output:
            raise PreconditionNotMet(f"Operator {op_name(op)}: `{names[0]}` holds no step "
                                     "scopes: its forward op did not run in this scope.")
        var.value = []
    return var.value


def _add_grads(a, b):
    """``a + b`` for gradients: tensors, or arrays step by step (an unwritten step is 0), as
    Paddle's sum op adds them."""
    if isinstance(a, LoDTensorArray) or isinstance(b, LoDTensorArray):
        a = a if isinstance(a, LoDTensorArray) else LoDTensorArray()
        b = b if isinstance(b, LoDTensorArray) else LoDTensorArray()
        out = LoDTensorArray()
        for k in range(max(len(a), len(b))):
            x = a[k] if k < len(a) else None
            y = b[k] if k < len(b) else None
            out.append(_add_grads(x, y) if x is not None and y is not None else (x or y))
        return out
    if a is None or a.data is None:
        return b
    if b is None or b.data is None:
        return a
    return DenseTensor(np.asarray(a.numpy()) + np.asarray(b.numpy()), a.dtype, a.place,
                       a.layout, a.lod)


class SubBlockOp(OperatorBase):
    """An operator that runs the ops of a sub-block (attribute ``sub_block``, or for
    ``pylayer`` the first of ``blocks``)."""

    block_attr = "sub_block"

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.sub_ops: list | None = None
        self._locals: tuple[tuple[str, VarType], ...] = ()
        self._array_locals: frozenset[str] = frozenset()
        self._persistables: tuple[str, ...] = ()
        self._bound = None  # (parent scope, place, kid scope, runners): see bound_block
        self._steps = None  # the bound runners as compiled segments (run_bound), once armed

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
        self._array_locals = frozenset(n for n, t in self._locals
                                       if t is VarType.LOD_TENSOR_ARRAY)
        self._bound = None
        self.sub_ops = [make_operator(i, d, where=f"{label} > block {index} ", pins=pins,
                                      shadow=shadow) for i, d in enumerate(sub.ops)]

    def _check_bound(self) -> None:
        if self.sub_ops is None:
            raise PreconditionNotMet(f"Operator {op_name(self)} runs a sub-block and needs its "
                                     "program: run it through an Executor.")

    def new_block_scope(self, scope: Scope, kid: Scope | None = None) -> Scope:
        """A kid of ``scope`` holding the sub-block's own variables (Paddle's
        BuildScopeForControlFlowOp); its persistables are made in the root scope if absent.
        Given ``kid`` (a grad op's forward step scope), its variables are added there, those
        it already holds kept."""
        if kid is None:
            kid = scope.new_scope()
        for name, var_type in self._locals:
            if kid.find_local_var(name) is None:
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
        profiler = current_profiler()
        if profiler is not None:  # fluid_compat.profiler: the block's ops timed one by one
            for op in self.sub_ops:
                profiler.run_op(op, kid, place)
            return
        for op in self.sub_ops:
            op.run(kid, place)

    def bound_block(self, scope: Scope, place: Place) -> tuple[Scope, list]:
        """The sub-block's kid scope of ``scope`` with a BoundRunner per op (each replays its
        op's cached kernel decision with no lookups, as block 0's runners do), made on the
        first run and kept for the next ones while ``scope`` and ``place`` stay: the kid is
        emptied first, so each run starts as in the fresh scope Paddle makes (its own
        variables uninitialized, its arrays empty).  An operator instance belongs to one plan,
        which one run uses at a time, so the kept scope is never shared."""
        cache = self._bound
        if cache is not None and cache[0] is scope and cache[1] == place:
            kid, runners = cache[2], cache[3]
            arrays = self._array_locals
            for name in kid.local_var_names():
                kid.find_local_var(name).value = LoDTensorArray() if name in arrays else None
            return kid, runners
        from fluid_compat.operators.runner import BoundRunner

        kid = self.new_block_scope(scope)
        runners = [BoundRunner(op, kid, place) for op in self.sub_ops]
        self._bound = (scope, place, kid, runners)
        self._steps = None
        return kid, runners

    def run_bound(self, kid: Scope, runners: list, place: Place) -> None:
        """One pass over the sub-block: its bound runners (the profiler times ops one by
        one instead)."""
        if current_profiler() is not None:
            self.run_ops(kid, place)
            return
        steps = self._steps
        if steps is not None and FLAGS[SEGMENTS_FLAG]:
            for step in steps:
                step()
            return
        for runner in runners:
            runner()
        if FLAGS[SEGMENTS_FLAG]:
            # after one pass the runners know their kernels: stretches of them replay as
            # compiled segments (operators/segments.py), as block 0's plan does.  Nothing is
            # released inside (every output is stored: the loop's own rules drop locals)
            self._steps = [step for step, _, _ in
                           compile_segments([(r, [], 1) for r in runners])]

    def run_once(self, scope: Scope, place: Place) -> None:
        """Run the sub-block once, in its kept kid scope emptied as a fresh one."""
        self._check_bound()
        kid, runners = self.bound_block(scope, place)
        self.run_bound(kid, runners, place)


class ConditionalBlockOp(SubBlockOp):
    """Runs the sub-block when ``Cond`` holds: its one element (is_scalar_condition), or else
    when every ``Cond`` tensor is non-empty (Paddle's ConditionalBlockOp); also
    ``conditional_block_infer``, which differs only in keeping no scope for a backward pass."""

    def bind_block(self, block, label: str, *, pins=None, shadow=None) -> None:
        super().bind_block(block, label, pins=pins, shadow=shadow)
        scope_names = self.outputs.get("Scope", ())
        self._keep_scope = self.type == "conditional_block" and _consumed_by(
            block.program, "conditional_block_grad", "Scope", scope_names[0] if scope_names
            else None)

    def need_run(self, scope: Scope) -> bool:
        if self.attrs.get("is_scalar_condition"):
            return _scalar_bool(self, _tensor(self, scope, "Cond"), "Cond")
        return all(_tensor(self, scope, "Cond", i).numel != 0
                   for i in range(len(self.inputs.get("Cond", ()))))

    def run_impl(self, scope: Scope, place: Place) -> None:
        if not self.need_run(scope):
            return
        if not getattr(self, "_keep_scope", False):
            self.run_once(scope, place)
            return
        kept = _scopes_list(self, scope, "Scope", output=True)
        for old in kept:  # the scope of the last run, kept for its grad op
            if old in scope.kids:
                scope.delete_scope(old)
        kept.clear()
        self._check_bound()
        kid = self.new_block_scope(scope)
        kept.append(kid)
        self.run_ops(kid, place)


class ConditionalBlockGradOp(ConditionalBlockOp):
    """``conditional_block_grad``: runs the grad block in the forward's kept scope, then moves
    each ``Input@GRAD`` out (a gradient the block did not compute is 0); when the branch did
    not run, every input's gradient is 0 (Paddle's ConditionalBlockGradOp)."""

    def run_impl(self, scope: Scope, place: Place) -> None:
        inputs = self.inputs.get("Input", ())
        outside = self.outputs.get("Input@GRAD", ())
        if self.need_run(scope):
            self._check_bound()
            kept = _scopes_list(self, scope, "Scope", output=False)
            if not kept:
                raise PreconditionNotMet(f"Operator {op_name(self)}: the forward "
                                         "conditional_block kept no scope.")
            cur = self.new_block_scope(scope, kept[0])
            self.run_ops(cur, place)
            zero_in, zero_out = [], []
            for name, grad in zip(inputs, outside, strict=False):
                var = scope.find_var(grad)
                if var is None or grad == EMPTY_VAR_NAME:
                    continue
                inner = cur.find_local_var(name + GRAD_SUFFIX)
                if inner is None or inner.value is None:
                    zero_in.append(name)
                    zero_out.append(grad)
                    continue
                var.value = _assigned(inner.value)
            self._assign_zeros(scope, zero_in, zero_out)
            return
        self._assign_zeros(scope, inputs, outside)

    def _assign_zeros(self, scope: Scope, inputs, grads) -> None:
        for name, grad in zip(inputs, grads, strict=False):
            x, g = scope.find_var(name), scope.find_var(grad)
            if x is None or g is None or grad == EMPTY_VAR_NAME:
                continue
            value = x.value
            if isinstance(value, DenseTensor):
                if value.data is not None and value.numel != 0:
                    g.value = zeros_like(value)
            elif isinstance(value, LoDTensorArray):
                g.value = LoDTensorArray(zeros_like(t) if t.data is not None else t
                                         for t in value)


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
        self._condition_written = self.input("Condition") in _names(self.sub_ops, reads=False)
        names = self.outputs.get("StepScopes", ())
        self._keep_steps = not self.attrs.get("is_test") and _consumed_by(
            block.program, "while_grad", "StepScopes", names[0] if names else None)
        if self._keep_steps:  # the inputs whose value at each step's start the grad reads
            program = block.program
            no_copy = {n for n, v in program.block(0).vars.items() if v.is_parameter}
            for d in program.block(self.attrs["sub_block"]).ops:
                outs = {n for names_ in d.outputs.values() for n in names_}
                no_copy |= {n for names_ in d.inputs.values() for n in names_ if n in outs}
            self._copied = tuple(n for n in self.inputs.get("X", ()) if n not in no_copy)

    def _condition(self, scope: Scope) -> bool:
        t = _tensor(self, scope, "Condition")
        if t.dtype is not DataType.BOOL:
            raise InvalidArgument(f"Operator {op_name(self)}: Condition "
                                  f"(`{self.input('Condition')}`) must be a bool tensor, got "
                                  f"{t.dtype}.")
        return _scalar_bool(self, t, "Condition")

    def run_impl(self, scope: Scope, place: Place) -> None:
        self._check_bound()
        if not self._condition(scope):
            return
        if not self._condition_written:
            raise PreconditionNotMet(
                f"Operator {op_name(self)}: its Condition `{self.input('Condition')}` is "
                "true and no op of its body writes it: the loop would never end. Nothing of "
                "the loop was run.")
        limit = int(FLAGS["FLAGS_while_max_steps"])
        steps = 0
        if self.attrs.get("is_test"):
            keep = frozenset(self.attrs.get("skip_eager_deletion_vars") or ())
            kid, runners = self.bound_block(scope, place)
            while True:
                for name, var in kid.local_vars():
                    value = var.value
                    if value is None:
                        continue
                    if isinstance(value, LoDTensorArray):
                        value.clear()
                    elif isinstance(value, DenseTensor) and name not in keep:
                        var.value = None  # Paddle's GC freed it after its last use
                    elif isinstance(value, DenseTensor) and value.lod:
                        var.value = DenseTensor(value.data, value.dtype, value.place,
                                                value.layout, (), value._dims)
                self.run_bound(kid, runners, place)
                steps += 1
                if not self._condition(scope):
                    return
                self._check_steps(steps, limit)
        if not self._keep_steps:
            while True:
                self.run_once(scope, place)
                steps += 1
                if not self._condition(scope):
                    return
                self._check_steps(steps, limit)
        kept = _scopes_list(self, scope, "StepScopes", output=True)
        for old in kept:  # the last run's steps, kept for its while_grad
            if old in scope.kids:
                scope.delete_scope(old)
        kept.clear()
        while True:
            saved = {}
            for name in self._copied:
                var = scope.find_var(name)
                if var is not None and isinstance(var.value, DenseTensor) and \
                        var.value.data is not None:
                    saved[name] = copied_tensor(var.value)
            kid = self.new_block_scope(scope)
            kept.append(kid)
            self.run_ops(kid, place)
            for name, t in saved.items():  # Paddle's rename of `name@TMP_COPY` to `name`
                kid.var(name).value = t
            steps += 1
            if not self._condition(scope):
                return
            self._check_steps(steps, limit)

    def _check_steps(self, steps: int, limit: int) -> None:
        if steps >= limit:
            raise PreconditionNotMet(
                f"Operator {op_name(self)} ran {steps} steps and its Condition "
                f"`{self.input('Condition')}` still holds: stopped at FLAGS_while_max_steps="
                f"{limit} (raise the flag for a longer loop).")


def _write_back(outside, linked, inside) -> None:
    """What the grad block wrote into a linked output gradient reaches the outside variable.

    Paddle links an inside output gradient to the outside one by sharing its memory, and a
    grad kernel that writes the inside name writes that memory in place when the size matches:
    this is how the gradient of a loop-carried variable flows to the step before.  Here the
    new value replaces the outside one under the same condition: same element count (an
    array: step by step, for steps the outside holds)."""
    if isinstance(inside, LoDTensorArray) and isinstance(outside.value, LoDTensorArray):
        out = outside.value
        for j in range(min(len(out), len(inside))):
            old, new = out[j], inside[j]
            if (new is not old and old.data is not None and new.data is not None
                    and old.numel != 0 and old.numel == new.numel):
                out[j] = new
        return
    if (isinstance(inside, DenseTensor) and inside is not linked and inside.data is not None
            and isinstance(outside.value, DenseTensor) and outside.value.data is not None
            and outside.value.numel == inside.numel):
        outside.value = inside


class WhileGradOp(SubBlockOp):
    """``while_grad``: the grad block runs in each kept step scope, last step first.  Before a
    step, each outside output gradient (``Out@GRAD``) is linked into the step under its
    inside name (attribute ``original_output_grad``; an uncomputed one starts as zeros of its
    declared shape); after it, each input's gradient ``X@GRAD`` is added to the outside one
    (zeros before the first), or, for a gradient that is also an output gradient, handed out
    as it is (Paddle's WhileGradOp)."""

    def bind_block(self, block, label: str, *, pins=None, shadow=None) -> None:
        super().bind_block(block, label, pins=pins, shadow=shadow)
        self._parent_block = block

    def run_impl(self, scope: Scope, place: Place) -> None:
        self._check_bound()
        steps = _scopes_list(self, scope, "StepScopes", output=False)
        outside_og = list(self.inputs.get("Out@GRAD", ()))
        inside_og = list(self.attrs.get("original_output_grad") or outside_og)
        if len(outside_og) != len(inside_og):
            raise InvalidArgument(f"Operator {op_name(self)}: {len(outside_og)} output "
                                  f"gradients but {len(inside_og)} original_output_grad names.")
        xs = self.inputs.get("X", ())
        x_grads = self.outputs.get("X@GRAD", ())
        if len(xs) != len(x_grads):
            raise InvalidArgument(f"Operator {op_name(self)}: X has {len(xs)} names, X@GRAD "
                                  f"{len(x_grads)}.")
        for k, cur in enumerate(reversed(steps)):
            for out_name, in_name in zip(outside_og, inside_og, strict=True):
                og = scope.find_var(out_name)
                if og is None:
                    continue
                if k == 0 and not isinstance(og.value, LoDTensorArray) and (
                        og.value is None or og.value.data is None):
                    og.value = self._declared_zeros(out_name)
                value = og.value
                cur.var(in_name).value = (LoDTensorArray(value)
                                          if isinstance(value, LoDTensorArray) else value)
            linked = {}
            for out_name, in_name in zip(outside_og, inside_og, strict=True):
                og = scope.find_var(out_name)
                if og is not None:
                    linked[in_name] = (og, cur.find_local_var(in_name).value)
            self.new_block_scope(scope, cur)
            self.run_ops(cur, place)
            for in_name, (og, before) in linked.items():
                _write_back(og, before, cur.find_local_var(in_name).value)
            for x, grad in zip(xs, x_grads, strict=True):
                if grad == EMPTY_VAR_NAME:
                    continue
                inner = cur.find_local_var(x + GRAD_SUFFIX)
                if inner is None or inner.value is None:
                    continue  # this step computed no gradient for x
                value = inner.value
                if isinstance(value, LoDTensorArray) and all(t.data is None or t.numel == 0
                                                             for t in value):
                    continue
                if isinstance(value, DenseTensor) and value.data is None:
                    continue
                outer = scope.find_var(grad) or scope.var(grad)
                if grad in outside_og:
                    outer.value = (LoDTensorArray(value) if isinstance(value, LoDTensorArray)
                                   else value)
                    continue
                if k == 0 and isinstance(value, DenseTensor):
                    outer.value = zeros_like(value)
                outer.value = _add_grads(outer.value, value)
        for s in steps:
            if s in scope.kids:
                scope.delete_scope(s)
        steps.clear()

    def _declared_zeros(self, name: str) -> DenseTensor:
        desc = self._parent_block.find_var_recursive(name)
        if desc is None or desc.shape is None or any(d < 0 for d in desc.shape):
            raise PreconditionNotMet(f"Operator {op_name(self)}: the output gradient "
                                     f"`{name}` was never computed and its declared shape is "
                                     "unknown, so it cannot start as zeros.")
        dtype = desc.dtype
        return DenseTensor(np.zeros(tuple(desc.shape), dtype=dtype.to_numpy()), dtype)


def _mask(op, scope: Scope, n: int) -> int:
    t = _tensor(op, scope, "Mask")
    host = np.asarray(t.numpy()).reshape(-1)
    if host.size != 1:
        raise InvalidArgument(f"Operator {op_name(op)}: Mask must hold one element, it "
                              f"holds {host.size}.")
    if not np.issubdtype(host.dtype, np.integer) and host.dtype != np.bool_:
        raise InvalidArgument(f"Operator {op_name(op)}: Mask (`{op.input('Mask')}`) must be "
                              f"an integer tensor, got {t.dtype}.")
    k = int(host[0])
    if not 0 <= k < n:
        raise InvalidArgument(f"Operator {op_name(op)}: Mask {k} is out of range [0, {n}).")
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
op_hooks("while_grad", operator_class=WhileGradOp)
op_hooks("conditional_block_grad", operator_class=ConditionalBlockGradOp)
op_hooks("select_input", operator_class=SelectInputOp)
op_hooks("select_output", operator_class=SelectOutputOp)
