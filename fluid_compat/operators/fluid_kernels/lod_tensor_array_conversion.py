"""lod_tensor_to_array and array_to_lod_tensor: a batch of sequences to time steps in rank
order and back (the old DynamicRNN's input and output), each the other's gradient.

Operator classes (Paddle's OperatorBase subclasses of lod_tensor_to_array_op.cc and
array_to_lod_tensor_op.cc), computed on the host.  With a rank table of level L, step t of the
array holds, for every sequence of level L longer than t (longest first), its t-th entry of
level L + 1 with whatever lies below it (rows, or deeper sequences with their LoD).
"""

from __future__ import annotations

import numpy as np
from phi.core.errors import InvalidArgument, PreconditionNotMet
from phi.core.tensor import CPU_PLACE, DenseTensor

from fluid_compat.framework.lod_rank_table import append_lod, sub_lod_and_offset
from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.framework.scope import LoDTensorArray
from fluid_compat.operators.op_values import (
    EMPTY_VAR,
    op_name,
    rank_table_input,
    tensor_array_input,
    tensor_input,
)
from fluid_compat.operators.base import OperatorBase

__all__ = ["ArrayToLoDTensorOp", "LoDTensorToArrayOp"]


class LoDTensorToArrayOp(OperatorBase):
    """Out[t] = the t-th entries of X's sequences at the table's level, in rank order."""

    def run_impl(self, scope, place) -> None:
        x = tensor_input(self, scope, "X")
        table = rank_table_input(self, scope)
        what = f"Operator {op_name(self)}"
        if not table.items:
            raise InvalidArgument(f"{what}: the rank table `{self.input('RankTable')}` holds no "
                                  "sequence.")
        level = table.level
        if level >= len(x.lod):
            raise InvalidArgument(f"{what}: input X (`{self.input('X')}`) must be a LoDTensor "
                                  f"of at least {level + 1} LoD level(s) (the rank table's "
                                  f"level is {level}), it has {len(x.lod)}.")
        host = np.asarray(x.numpy())
        steps = []
        for t in range(table.items[0][1]):
            lod: list[list[int]] = []
            pieces = []
            for index, length in table.items:
                if t >= length:
                    break
                start = x.lod[level][index] + t
                lengths, (begin, end) = sub_lod_and_offset(x.lod, start, start + 1, level + 1,
                                                           what)
                append_lod(lod, lengths, what)
                pieces.append(host[begin:end])
            data = np.concatenate(pieces) if pieces else host[:0].copy()
            steps.append(DenseTensor(data, x.dtype, CPU_PLACE, x.layout,
                                     tuple(tuple(v) for v in lod)))
        _write_array(self, scope, "Out", steps)


def _write_array(op, scope, slot: str, steps: list) -> None:
    """The output array takes exactly ``steps`` (Paddle resizes the array it finds)."""
    names = op.outputs.get(slot, ())
    if not names or names[0] == EMPTY_VAR:
        return
    var = scope.find_var(names[0]) or scope.var(names[0])
    if isinstance(var.value, LoDTensorArray):
        var.value[:] = steps
    else:
        var.value = LoDTensorArray(steps)


class ArrayToLoDTensorOp(OperatorBase):
    """Out = the steps of X stitched back into sequences in their original order, with the
    table's coarse LoD above them."""

    def run_impl(self, scope, place) -> None:
        x = tensor_array_input(self, scope, "X")
        table = rank_table_input(self, scope)
        what = f"Operator {op_name(self)}"
        name = self.input("X")
        if not x:
            raise PreconditionNotMet(f"{what}: there's no element in the input array "
                                     f"`{name}`.")
        for i, t in enumerate(x):
            if not isinstance(t, DenseTensor) or t.data is None:
                raise PreconditionNotMet(f"{what}: element {i} of the input array `{name}` "
                                         "holds no tensor.")
        first = x[0]
        inner = tuple(first.dims[1:])
        for i, t in enumerate(x[1:], 1):
            if tuple(t.dims[1:]) != inner:
                raise InvalidArgument(f"{what}: the dimension of element {i} of `{name}` "
                                      f"{list(t.dims)} differs from element 0's "
                                      f"{list(first.dims)}.")
            if t.dtype is not first.dtype:
                raise InvalidArgument(f"{what}: the data type of element {i} of `{name}` "
                                      f"({t.dtype}) differs from element 0's ({first.dtype}).")
        hosts = [np.asarray(t.numpy()) for t in x]
        rows = sum(h.shape[0] for h in hosts)
        positions = sorted(range(len(table.items)), key=lambda k: table.items[k][0])
        top = [0]
        lod: list[list[int]] = []
        pieces = []
        for k in positions:
            length = table.items[k][1]
            top.append(top[-1] + length)
            if length > len(x):
                raise InvalidArgument(f"{what}: the rank table's sequence {table.items[k][0]} "
                                      f"has {length} steps, the input array `{name}` holds "
                                      f"{len(x)}.")
            for step in range(length):
                t = x[step]
                if not t.lod and k >= hosts[step].shape[0]:
                    raise InvalidArgument(f"{what}: element {step} of `{name}` has "
                                          f"{hosts[step].shape[0]} rows, the rank table needs "
                                          f"row {k} (an array index past the end).")
                lengths, (begin, end) = sub_lod_and_offset(t.lod, k, k + 1, 0,
                                                           f"{what}: element {step} of `{name}`")
                append_lod(lod, lengths, what)
                pieces.append(hosts[step][begin:end])
        data = np.concatenate(pieces) if pieces else hosts[0][:0].copy()
        if data.shape[0] < rows:  # steps hold rows no sequence takes: Paddle leaves them unset
            data = np.concatenate([data, np.zeros((rows - data.shape[0], *inner), data.dtype)])
        out_lod = (*tuple(table.coarse_lod), tuple(top), *tuple(tuple(v) for v in lod))
        out = DenseTensor(data, first.dtype, CPU_PLACE, first.layout, out_lod)
        names = self.outputs.get("Out", ())
        if names and names[0] != EMPTY_VAR:
            var = scope.find_var(names[0]) or scope.var(names[0])
            var.value = out


op_hooks("lod_tensor_to_array", operator_class=LoDTensorToArrayOp)
op_hooks("array_to_lod_tensor", operator_class=ArrayToLoDTensorOp)
