"""Typed input and output values of operator classes (OperatorBase subclasses with a run_impl).

An operator class reads its inputs from the scope itself: a tensor, a LoDTensorArray, a
LoDRankTable.  These helpers find the variable of a slot, check the value's kind and raise a
typed error naming the operator (where it sits: ``op #3 `shrink_rnn_memory```), the slot and
the variable when it is missing or of another kind; ``set_output`` writes a slot's variable,
creating it in the scope the op runs in when no enclosing scope has it.
"""

from __future__ import annotations

import numpy as np

from opmakers.grad import EMPTY_VAR_NAME
from phi.core.errors import InvalidArgument, NotFound, PreconditionNotMet
from phi.core.tensor import DenseTensor

from fluid_compat.framework.lod_rank_table import LoDRankTable
from fluid_compat.framework.scope import LoDTensorArray, Scope, Variable

__all__ = ["EMPTY_VAR", "copied_tensor", "op_name", "optional_tensor", "output_names",
           "rank_table_input", "set_output", "tensor_array_input", "tensor_input", "zeros_like"]

#: the name a grad op's unneeded output carries (nothing is written to it)
EMPTY_VAR = EMPTY_VAR_NAME


def op_name(op) -> str:
    """The operator as errors name it: its label (index and enclosing blocks) or its type."""
    return getattr(op, "label", None) or f"`{op.type}`"


def _kind(value: object) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, DenseTensor):
        return "a tensor" if value.data is not None else "an uninitialized tensor"
    if isinstance(value, LoDTensorArray):
        return f"a tensor array of {len(value)}"
    if isinstance(value, LoDRankTable):
        return "a LoDRankTable"
    return type(value).__name__


def _variable(op, scope: Scope, slot: str, index: int) -> tuple[str, Variable]:
    names = op.inputs.get(slot, ())
    if len(names) <= index:
        raise InvalidArgument(f"Operator {op_name(op)}: input `{slot}` is missing.")
    var = scope.find_var(names[index])
    if var is None:
        raise NotFound(f"Operator {op_name(op)}: input `{slot}` (`{names[index]}`) is not "
                       "found in the scope.")
    return names[index], var


def tensor_input(op, scope: Scope, slot: str, index: int = 0) -> DenseTensor:
    """Input ``slot`` [index]: a tensor holding data."""
    name, var = _variable(op, scope, slot, index)
    value = var.value
    if not isinstance(value, DenseTensor) or value.data is None:
        raise PreconditionNotMet(f"Operator {op_name(op)}: input `{slot}` (`{name}`) must hold "
                                 f"a tensor, it holds {_kind(value)}.")
    return value


def optional_tensor(op, scope: Scope, slot: str, index: int = 0) -> DenseTensor | None:
    """Input ``slot`` [index] when the op names it and it holds a tensor with data, else None
    (a grad op's Out@GRAD that no op computed)."""
    names = op.inputs.get(slot, ())
    if len(names) <= index or names[index] == EMPTY_VAR:
        return None
    var = scope.find_var(names[index])
    value = None if var is None else var.value
    return value if isinstance(value, DenseTensor) and value.data is not None else None


def rank_table_input(op, scope: Scope, slot: str = "RankTable") -> LoDRankTable:
    """Input ``slot``: a LoDRankTable (what a lod_rank_table op wrote)."""
    name, var = _variable(op, scope, slot, 0)
    value = var.value
    if not isinstance(value, LoDRankTable):
        raise InvalidArgument(f"Operator {op_name(op)}: input `{slot}` (`{name}`) must hold a "
                              f"LoDRankTable (the output of lod_rank_table), it holds "
                              f"{_kind(value)}.")
    return value


def tensor_array_input(op, scope: Scope, slot: str = "X") -> LoDTensorArray:
    """Input ``slot``: a LoDTensorArray."""
    name, var = _variable(op, scope, slot, 0)
    value = var.value
    if not isinstance(value, LoDTensorArray):
        raise InvalidArgument(f"Operator {op_name(op)}: input `{slot}` (`{name}`) must hold a "
                              f"tensor array, it holds {_kind(value)}.")
    return value


def copied_tensor(t: DenseTensor) -> DenseTensor:
    """A tensor of its own (Paddle's TensorCopy into and out of arrays, a while step's saved
    input): the array is copied so that no later in-place write reaches it."""
    data = None if t.data is None else t.data.copy()
    return DenseTensor(data, t.dtype, t.place, t.layout, t.lod,
                       None if t.data is not None else t.dims)


def zeros_like(t: DenseTensor) -> DenseTensor:
    """Zeros of ``t``'s dims, dtype, place, layout and LoD (a gradient nobody computed)."""
    return DenseTensor(np.zeros(t.dims, dtype=t.dtype.to_numpy()), t.dtype, t.place, t.layout,
                       t.lod)


def output_names(op, slot: str) -> tuple[str, ...]:
    return tuple(op.outputs.get(slot, ()))


def set_output(op, scope: Scope, slot: str, value: object, index: int = 0) -> Variable | None:
    """Write ``value`` to output ``slot`` [index] (nothing for an absent or @EMPTY@ output)."""
    names = op.outputs.get(slot, ())
    if len(names) <= index or names[index] == EMPTY_VAR:
        return None
    var = scope.find_var(names[index]) or scope.var(names[index])
    var.value = value
    return var
