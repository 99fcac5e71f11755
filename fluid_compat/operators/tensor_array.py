"""Tensor-array operators: write_to_array, read_from_array, lod_array_length,
tensor_array_to_tensor.

A LOD_TENSOR_ARRAY variable holds a `LoDTensorArray` (a list of DenseTensors, each with its own
LoD).  These ops are OperatorBase ops in Paddle 2.6.2 (no kernel): they read and write the array
in the scope directly, as its array ops do:

* ``write_to_array(X, I) -> Out``: ``Out[I] = X`` (a copy of X with its LoD), the array grown
  to ``I + 1`` first; the steps added by growing hold uninitialized tensors.  An X that is absent
  from the scope writes nothing (Paddle returns early).
* ``read_from_array(X, I [, X_W]) -> Out``: ``Out = X[I]``.  Past the end, Paddle 2.6.2 leaves
  Out as it was (or, with X_W, as in a write_to_array grad, fills it with zeros of X_W's shape);
  the bridge fills zeros with X_W too, and without X_W raises OutOfRange naming the op, the
  array and its length: a deliberate deviation (docs/control-flow.md), since Paddle's
  silent no-op hands the next op a stale or missing tensor.
* ``lod_array_length(X) -> Out``: an int64 tensor ``[len(X)]`` of shape [1].
* ``tensor_array_to_tensor(X) -> Out, OutIndex``: the steps concatenated along ``axis`` (or
  stacked with ``use_stack``); OutIndex (int32) holds each step's size along ``axis``; its
  grad splits (unstacks) Out@GRAD back into an array.
* In a grad block, ``write_to_array`` and ``read_from_array`` are each other's gradients (the
  same op types, as Paddle's makers emit them).

``I`` is one int64 element on any place (copied to the host); a negative index, a wrong dtype or
element count, or a value that is not an array raise typed errors naming op and variable.
"""

from __future__ import annotations

import numpy as np
from phi.common.data_type import DataType
from phi.common.place import Place
from phi.core.errors import InvalidArgument, NotFound, OutOfRange, PreconditionNotMet
from phi.core.tensor import DenseTensor

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.framework.scope import LoDTensorArray, Scope
from fluid_compat.operators.op_values import (
    copied_tensor,
    op_name,
    set_output,
    tensor_array_input,
    tensor_input,
    zeros_like,
)
from fluid_compat.operators.base import OperatorBase

__all__ = ["LoDArrayLengthOp", "ReadFromArrayOp", "TensorArrayToTensorGradOp",
           "TensorArrayToTensorOp", "WriteToArrayOp",
           "array_index"]


def _host(t: DenseTensor) -> np.ndarray:
    data = t.data
    if not isinstance(data, np.ndarray):  # a device array: its host copy
        data = t.numpy()
    return np.asarray(data)


def array_index(op, scope: Scope) -> int:
    """The value of input ``I``: one integer element, not negative (Paddle reads it as int64
    and casts it to size_t)."""
    name = op.input("I")
    var = None if name is None else scope.find_var(name)
    t = None if var is None else var.value
    if not isinstance(t, DenseTensor) or t.data is None:
        raise NotFound(f"Operator {op_name(op)}: the index I (`{name}`) holds no tensor.")
    host = _host(t).reshape(-1)
    if host.size != 1:
        raise InvalidArgument(f"Operator {op_name(op)}: the index I (`{name}`) must hold one "
                              f"element, it holds {host.size} (shape {list(t.dims)}).")
    if not np.issubdtype(host.dtype, np.integer):
        raise InvalidArgument(f"Operator {op_name(op)}: the index I (`{name}`) must be an "
                              f"integer tensor (int64), got {t.dtype}.")
    i = int(host[0])
    if i < 0:
        raise OutOfRange(f"Operator {op_name(op)}: the index I (`{name}`) is {i}; an array "
                         "index must not be negative.")
    return i


def _output_array(op, scope: Scope) -> LoDTensorArray:
    """write_to_array's Out: its LoDTensorArray, made empty when the variable holds nothing."""
    name = op.outputs["Out"][0]
    var = scope.find_var(name) or scope.var(name)
    if var.value is None:
        var.value = LoDTensorArray()
    if not isinstance(var.value, LoDTensorArray):
        raise InvalidArgument(f"Operator {op_name(op)}: output `Out` (`{name}`) must hold a "
                              f"tensor array, it holds {type(var.value).__name__}.")
    return var.value


class WriteToArrayOp(OperatorBase):
    """Out[I] = X (module doc)."""

    def run_impl(self, scope: Scope, place: Place) -> None:
        x_var = scope.find_var(self.input("X"))
        if x_var is None:
            return  # Paddle: nothing to write
        x = x_var.value
        if not isinstance(x, DenseTensor):
            what = "nothing" if x is None else type(x).__name__
            raise InvalidArgument(f"Operator {op_name(self)}: X (`{self.input('X')}`) must "
                                  f"hold a tensor, it holds {what}.")
        i = array_index(self, scope)
        out = _output_array(self, scope)
        if i >= len(out):
            out.extend(DenseTensor() for _ in range(i + 1 - len(out)))
        if x.data is None:  # Paddle: the step keeps X's LoD, no data is written
            out[i] = DenseTensor(None, out[i].dtype, lod=x.lod)
        else:
            out[i] = copied_tensor(x)


class ReadFromArrayOp(OperatorBase):
    """Out = X[I] (module doc)."""

    def run_impl(self, scope: Scope, place: Place) -> None:
        x = tensor_array_input(self, scope, "X")
        i = array_index(self, scope)
        out = scope.find_var(self.outputs["Out"][0]) or scope.var(self.outputs["Out"][0])
        if i < len(x):
            step = x[i]
            if step.data is None:
                raise PreconditionNotMet(
                    f"Operator {op_name(self)}: step {i} of the array X "
                    f"(`{self.input('X')}`) was never written (the array has {len(x)} steps).")
            out.value = copied_tensor(step)
            return
        fw_name = self.input("X_W")
        fw = None if fw_name is None else scope.find_var(fw_name)
        if fw is not None and isinstance(fw.value, DenseTensor) and fw.value.data is not None:
            w = fw.value  # a write_to_array grad: the step was never written, its grad is 0
            out.value = zeros_like(w)
            return
        raise OutOfRange(f"Operator {op_name(self)}: index I = {i} reads past the end of the "
                         f"array X (`{self.input('X')}`), which has {len(x)} steps.")


class LoDArrayLengthOp(OperatorBase):
    """Out = [len(X)] (int64, shape [1])."""

    def run_impl(self, scope: Scope, place: Place) -> None:
        x = tensor_array_input(self, scope, "X")
        set_output(self, scope, "Out", DenseTensor(np.array([len(x)], dtype=np.int64),
                                                   DataType.INT64))


class TensorArrayToTensorOp(OperatorBase):
    """Out = concat(X, axis) or stack(X, axis); OutIndex = each step's size along axis."""

    def run_impl(self, scope: Scope, place: Place) -> None:
        x = tensor_array_input(self, scope, "X")
        name = self.input("X")
        if not x:
            raise InvalidArgument(f"Operator {op_name(self)}: the array X (`{name}`) is "
                                  "empty; tensor_array_to_tensor needs at least one step.")
        for k, t in enumerate(x):
            if t.data is None:
                raise PreconditionNotMet(f"Operator {op_name(self)}: step {k} of the array "
                                         f"X (`{name}`) was never written.")
        dtypes = {t.dtype for t in x}
        if len(dtypes) != 1:
            raise InvalidArgument(f"Operator {op_name(self)}: the steps of X (`{name}`) have "
                                  f"different dtypes {sorted(map(str, dtypes))}.")
        axis = int(self.attrs.get("axis", 0))
        use_stack = bool(self.attrs.get("use_stack", False))
        ranks = {len(t.dims) for t in x}
        if len(ranks) != 1:
            raise InvalidArgument(f"Operator {op_name(self)}: the steps of X (`{name}`) have "
                                  f"different ranks {sorted(ranks)}.")
        rank = ranks.pop()
        limit = rank + 1 if use_stack else rank
        if not -limit <= axis < limit:
            raise InvalidArgument(f"Operator {op_name(self)}: axis {axis} is out of range "
                                  f"[{-limit}, {limit}) for steps of rank {rank}.")
        arrays = [_host(t) for t in x]
        try:
            out = np.stack(arrays, axis=axis) if use_stack else np.concatenate(arrays, axis=axis)
        except ValueError as exc:
            shapes = [list(t.dims) for t in x]
            raise InvalidArgument(f"Operator {op_name(self)}: the steps of X (`{name}`) "
                                  f"cannot be {'stacked' if use_stack else 'concatenated'} on "
                                  f"axis {axis}: shapes {shapes}.") from exc
        # each step's size along axis (Paddle reads dims[axis] of every step)
        index_axis = axis if axis >= 0 else axis + rank
        sizes = [int(t.dims[index_axis]) if 0 <= index_axis < rank else 1 for t in x]
        dtype = next(iter(dtypes))
        set_output(self, scope, "Out", DenseTensor(out, dtype))
        if self.outputs.get("OutIndex"):
            set_output(self, scope, "OutIndex", DenseTensor(np.array(sizes, dtype=np.int32),
                                                            DataType.INT32))


class TensorArrayToTensorGradOp(OperatorBase):
    """X@GRAD = Out@GRAD split back into steps shaped as X's (concat's grad), or unstacked
    along axis (stack's grad)."""

    def run_impl(self, scope: Scope, place: Place) -> None:
        x = tensor_array_input(self, scope, "X")
        name = self.input("X")
        if not x:
            raise InvalidArgument(f"Operator {op_name(self)}: the array X (`{name}`) is "
                                  "empty.")
        dout = tensor_input(self, scope, "Out@GRAD")
        dout_name = self.input("Out@GRAD")
        g = _host(dout)
        axis = int(self.attrs.get("axis", 0))
        axis = axis if axis >= 0 else axis + g.ndim
        if self.attrs.get("use_stack"):
            parts = [np.take(g, k, axis=axis) for k in range(g.shape[axis])]
        else:
            bounds = np.cumsum([int(t.dims[axis]) for t in x])[:-1]
            parts = np.split(g, bounds, axis=axis)
        if len(parts) != len(x):
            raise InvalidArgument(f"Operator {op_name(self)}: Out@GRAD (`{dout_name}`) "
                                  f"splits into {len(parts)} steps, X (`{name}`) has {len(x)}.")
        out = LoDTensorArray(DenseTensor(np.ascontiguousarray(p), dout.dtype, lod=t.lod)
                             for p, t in zip(parts, x, strict=True))
        set_output(self, scope, "X@GRAD", out)


op_hooks("write_to_array", operator_class=WriteToArrayOp)
op_hooks("tensor_array_to_tensor_grad", operator_class=TensorArrayToTensorGradOp)
op_hooks("read_from_array", operator_class=ReadFromArrayOp)
op_hooks("lod_array_length", operator_class=LoDArrayLengthOp)
op_hooks("tensor_array_to_tensor", operator_class=TensorArrayToTensorOp)
