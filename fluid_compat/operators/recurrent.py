"""``recurrent``: the static-length RNN (the old StaticRNN), its step block run once per step.

Paddle 2.6.2's RecurrentOp (recurrent_op.cc), as it behaves:

* the sequence length is dim 0 of every ``inputs`` tensor (they must agree); step t sees each
  input as its slice [t] (dim 0 dropped), under the same variable name, in the step's scope;
* each step runs in a step scope, a kid of the scope the op runs in: one per step with
  ``is_train`` (kept in the ``step_scopes`` variable after the run, for a backward pass, and
  dropped when the op runs again), else two used in turn;
* with ``has_states``, the memories: at the first step ``ex_states[k]`` is ``initial_states[k]``,
  later the ``states[k]`` the previous step computed;
* ``reverse`` walks the steps from the last slice to the first;
* after a step, ``outputs[k]`` (same name inside and outside) is copied into slice [t] of the
  outside tensor, of shape [seq_len] + the step's shape, made at the first step;
* the step block's own (non-persistable) variables are created in the step scope before it runs
  (Executor::CreateVariables), so its ops write there; anything else (parameters, variables of
  enclosing blocks) is found through the parent chain.

The step block's operators are made once when the program is planned (control_flow's
SubBlockOp) and keep their cached kernel choices across steps and runs.
"""

from __future__ import annotations

import numpy as np
from phi.common.place import Place
from phi.core.errors import InvalidArgument, NotFound, PreconditionNotMet
from phi.core.tensor import DenseTensor

from fluid_compat.framework import VarType
from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.framework.scope import LoDTensorArray, Scope
from fluid_compat.operators.control_flow import SubBlockOp
from fluid_compat.operators.op_values import op_name

__all__ = ["RecurrentGradOp", "RecurrentOp"]

#: variable types a step scope does not create (as control_flow's sub-block scopes)
_NO_VALUE = (VarType.FEED_MINIBATCH, VarType.FETCH_LIST, VarType.RAW, VarType.STEP_SCOPES)


class RecurrentOp(SubBlockOp):
    """The ``recurrent`` operator (module doc)."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.step_vars: tuple[tuple[str, VarType], ...] = ()

    def bind_block(self, block, label: str, *, pins=None, shadow=None) -> None:
        super().bind_block(block, label, pins=pins, shadow=shadow)
        sub = block.program.block(self.attrs["sub_block"])
        self.step_vars = tuple((name, v.type) for name, v in sub.vars.items()
                               if not v.persistable and v.type not in _NO_VALUE)
        if self.attrs.get("has_states"):
            ex, cur = self._names("ex_states"), self._names("states")
            init = self.inputs.get("initial_states", ())
            if not len(ex) == len(cur) == len(init):
                raise InvalidArgument(
                    f"{label}: has_states needs as many ex_states ({len(ex)}) as states "
                    f"({len(cur)}) and initial_states ({len(init)}), in the same order.")

    def _names(self, attr: str) -> tuple[str, ...]:
        return tuple(self.attrs.get(attr) or ())

    # -- one run ----------------------------------------------------------------------------
    def _sequence_length(self, scope: Scope) -> int:
        names = self.inputs.get("inputs", ())
        if not names:
            raise InvalidArgument(f"Operator {op_name(self)} gets no `inputs` (the sequences "
                                  "it steps over).")
        seq_len = None
        for name in names:
            t = self._outer_tensor(scope, name, "inputs")
            if not t.dims:
                raise InvalidArgument(f"Operator {op_name(self)}: input `{name}` is 0-D; a "
                                      "step input is [seq_len, ...].")
            if seq_len is None:
                seq_len = t.dims[0]
            elif t.dims[0] != seq_len:
                raise InvalidArgument(
                    f"Operator {op_name(self)}: the sequence length of input `{name}` "
                    f"({t.dims[0]}) is not that of the inputs before it ({seq_len}).")
        return int(seq_len)

    def _outer_tensor(self, scope: Scope, name: str, slot: str) -> DenseTensor:
        var = scope.find_var(name)
        if var is None:
            raise NotFound(f"Operator {op_name(self)}: {slot} variable `{name}` is not found in "
                           "the scope.")
        value = var.value
        if not isinstance(value, DenseTensor) or value.data is None:
            kind = "nothing" if value is None else type(value).__name__
            raise InvalidArgument(f"Operator {op_name(self)} accepts only tensors as {slot}: "
                                  f"`{name}` holds {kind}.")
        return value

    def _new_step_scopes(self, scope: Scope, count: int) -> list[Scope]:
        names = self.outputs.get("step_scopes", ())
        if not names:
            raise InvalidArgument(f"Operator {op_name(self)}: output `step_scopes` is missing.")
        var = scope.find_var(names[0]) or scope.var(names[0])
        old = var.value if isinstance(var.value, list) else []
        for kid in old:  # the scopes of the previous run (kept for a backward pass)
            if kid.parent is not None and kid in kid.parent.kids:
                kid.parent.delete_scope(kid)
        scopes = [scope.new_scope() for _ in range(count)]
        var.value = scopes
        return scopes

    def run_impl(self, scope: Scope, place: Place) -> None:
        self._check_bound()
        seq_len = self._sequence_length(scope)
        train = bool(self.attrs.get("is_train", True))
        reverse = bool(self.attrs.get("reverse", False))
        has_states = bool(self.attrs.get("has_states", False))
        scopes = self._new_step_scopes(scope, seq_len if train else min(seq_len, 2))
        ex_states, states = self._names("ex_states"), self._names("states")
        for i in range(seq_len):
            offset = seq_len - 1 - i if reverse else i
            cur = scopes[i if train else i % 2]
            for name in self.inputs.get("inputs", ()):
                outer = self._outer_tensor(scope, name, "inputs")
                cur.var(name).value = DenseTensor(outer.data[offset], outer.dtype, outer.place,
                                                  outer.layout)
            if has_states:
                if i == 0:
                    source, names = scope, self.inputs.get("initial_states", ())
                    slot = "initial_states"
                else:
                    source, names, slot = scopes[(i - 1) if train else (i - 1) % 2], states, \
                        "states"
                for src, dst in zip(names, ex_states, strict=True):
                    cur.var(dst).value = self._state(source, src, slot, i)
            for name, var_type in self.step_vars:
                if cur.find_local_var(name) is None:
                    cur.var(name).value = LoDTensorArray() \
                        if var_type is VarType.LOD_TENSOR_ARRAY else None
            for op in self.sub_ops:
                op.run(cur, place)
            self._write_outputs(scope, cur, seq_len, offset, i == 0)

    def _state(self, source: Scope, name: str, slot: str, step: int) -> DenseTensor:
        var = source.find_var(name)
        value = None if var is None else var.value
        if not isinstance(value, DenseTensor) or value.data is None:
            where = "before the first step" if step == 0 else f"by step {step - 1}"
            raise PreconditionNotMet(f"Operator {op_name(self)}: the memory `{name}` ({slot}) "
                                     f"holds no tensor {where}.")
        return value

    def _write_outputs(self, scope: Scope, cur: Scope, seq_len: int, offset: int,
                       first: bool) -> None:
        for name in self.outputs.get("outputs", ()):
            var = cur.find_var(name)
            inner = None if var is None else var.value
            if not isinstance(inner, DenseTensor) or inner.data is None:
                raise PreconditionNotMet(f"Operator {op_name(self)}: the step block computed "
                                         f"no tensor for the output `{name}`.")
            host = np.asarray(inner.numpy())
            outer_var = scope.find_var(name) or scope.var(name)
            outer = outer_var.value
            if first or not isinstance(outer, DenseTensor) or outer.data is None:
                outer = outer_var.value = DenseTensor(
                    np.empty((seq_len, *host.shape), host.dtype), inner.dtype,
                    layout=inner.layout)
            if outer.data.shape[1:] != host.shape:
                raise InvalidArgument(f"Operator {op_name(self)}: the step output `{name}` has "
                                      f"shape {list(host.shape)} at step {offset}, "
                                      f"{list(outer.data.shape[1:])} before.")
            outer.data[offset] = host


def _grad(name: str) -> str:
    return name + "@GRAD"


class RecurrentGradOp(RecurrentOp):
    """``recurrent_grad``: the step block's grad block (its ``sub_block``) run in the forward's
    step scopes, last step first (Paddle's RecurrentGradOp):

    * before a step, ``outputs@GRAD`` slice [t] is linked in as each output's grad, and (after
      the first step done) each ``states[k]@GRAD`` is the ``ex_states[k]@GRAD`` the later step
      computed;
    * after it, each ``parameters[k]@GRAD`` the block computed is added to the outside grad
      (zeros at the first step done), ``inputs[k]@GRAD`` goes to slice [t] of the outside
      grad, and after the last, ``ex_states[k]@GRAD`` is ``initial_states@GRAD[k]``;
    * the step scopes are dropped at the end.
    """

    def bind_block(self, block, label: str, *, pins=None, shadow=None) -> None:
        super().bind_block(block, label, pins=pins, shadow=shadow)
        if not self.attrs.get("is_train", True):
            raise InvalidArgument(f"{label}: cannot run the backward of a recurrent op whose "
                                  "is_train is false (it keeps no step scopes).")

    def _forward_scopes(self, scope: Scope, seq_len: int) -> list[Scope]:
        names = self.inputs.get("step_scopes", ())
        var = scope.find_var(names[0]) if names else None
        scopes = None if var is None else var.value
        if not isinstance(scopes, list) or len(scopes) != seq_len:
            got = "nothing" if not isinstance(scopes, list) else f"{len(scopes)} scope(s)"
            raise PreconditionNotMet(
                f"Operator {op_name(self)}: the step scopes `{names[0] if names else '?'}` "
                f"hold {got}, {seq_len} expected: run the forward recurrent op first, in the "
                "same scope.")
        return scopes

    def run_impl(self, scope: Scope, place: Place) -> None:
        self._check_bound()
        seq_len = self._sequence_length(scope)
        scopes = self._forward_scopes(scope, seq_len)
        reverse = bool(self.attrs.get("reverse", False))
        has_states = bool(self.attrs.get("has_states", False))
        ex_states, states = self._names("ex_states"), self._names("states")
        inputs = self.inputs.get("inputs", ())
        params = self.inputs.get("parameters", ())
        try:
            for step in range(seq_len):
                index = seq_len - 1 - step
                offset = step if reverse else seq_len - 1 - step
                cur = scopes[index]
                for name in self.inputs.get("outputs@GRAD", ()):
                    var = scope.find_var(name)
                    outer = None if var is None else var.value
                    if isinstance(outer, DenseTensor) and outer.data is not None:
                        cur.var(name).value = DenseTensor(outer.data[offset], outer.dtype,
                                                          outer.place, outer.layout)
                if has_states and step:
                    later = scopes[index + 1]
                    for ex, state in zip(ex_states, states, strict=True):
                        g = later.find_var(_grad(ex))
                        value = None if g is None else g.value
                        if not isinstance(value, DenseTensor) or value.data is None:
                            raise PreconditionNotMet(
                                f"Operator {op_name(self)}: the grad block computed no "
                                f"`{_grad(ex)}` at step {offset + (-1 if reverse else 1)}.")
                        cur.var(_grad(state)).value = value
                for name, var_type in self.step_vars:
                    if cur.find_local_var(name) is None:
                        cur.var(name).value = LoDTensorArray() \
                            if var_type is VarType.LOD_TENSOR_ARRAY else None
                for op in self.sub_ops:
                    op.run(cur, place)
                self._add_param_grads(scope, cur, params, step == 0)
                self._write_input_grads(scope, cur, inputs, seq_len, offset, step == 0)
                if has_states and step == seq_len - 1:
                    for ex, name in zip(ex_states, self.outputs.get("initial_states@GRAD", ()),
                                        strict=False):
                        g = cur.find_local_var(_grad(ex))
                        value = None if g is None else g.value
                        if name != "@EMPTY@" and isinstance(value, DenseTensor) \
                                and value.data is not None:
                            (scope.find_var(name) or scope.var(name)).value = DenseTensor(
                                np.array(value.numpy()), value.dtype, layout=value.layout)
        finally:
            for kid in scopes:
                if kid.parent is not None and kid in kid.parent.kids:
                    kid.parent.delete_scope(kid)
            names = self.inputs.get("step_scopes", ())
            var = scope.find_var(names[0]) if names else None
            if var is not None:
                var.value = []

    def _add_param_grads(self, scope: Scope, cur: Scope, params, first: bool) -> None:
        for param, name in zip(params, self.outputs.get("parameters@GRAD", ()), strict=False):
            inner_var = cur.find_local_var(_grad(param))
            inner = None if inner_var is None else inner_var.value
            if name == "@EMPTY@" or not isinstance(inner, DenseTensor) or inner.data is None:
                continue  # the grad block computes no gradient of this parameter
            host = np.asarray(inner.numpy())
            outer_var = scope.find_var(name) or scope.var(name)
            if first or not isinstance(outer_var.value, DenseTensor) \
                    or outer_var.value.data is None:
                total = np.zeros_like(host)
            else:
                total = np.asarray(outer_var.value.numpy())
            outer_var.value = DenseTensor(total + host, inner.dtype, layout=inner.layout)

    def _write_input_grads(self, scope: Scope, cur: Scope, inputs, seq_len: int, offset: int,
                           first: bool) -> None:
        for x, name in zip(inputs, self.outputs.get("inputs@GRAD", ()), strict=False):
            inner_var = cur.find_local_var(_grad(x))
            inner = None if inner_var is None else inner_var.value
            if name == "@EMPTY@" or not isinstance(inner, DenseTensor) or inner.data is None:
                continue
            host = np.asarray(inner.numpy())
            outer_var = scope.find_var(name) or scope.var(name)
            outer = outer_var.value
            if first or not isinstance(outer, DenseTensor) or outer.data is None:
                outer = outer_var.value = DenseTensor(
                    np.zeros((seq_len, *host.shape), host.dtype), inner.dtype,
                    layout=inner.layout)
            outer.data[offset] = host


# a step block without memories (has_states False) or parameters: Paddle runs it with those empty
op_hooks("recurrent", operator_class=RecurrentOp,
         may_be_empty=frozenset({"initial_states", "parameters"}))
op_hooks("recurrent_grad", operator_class=RecurrentGradOp)
