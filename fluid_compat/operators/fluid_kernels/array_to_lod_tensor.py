"""The operator class hook of array_to_lod_tensor."""

from __future__ import annotations

import numpy as np

from fluid_compat.framework.lod_rank_table import append_lod, sub_lod_and_offset
from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.base import OperatorBase
from fluid_compat.operators.op_values import (
    EMPTY_VAR,
    op_name,
    rank_table_input,
    tensor_array_input,
)
from phi.core.errors import InvalidArgument, PreconditionNotMet
from phi.core.tensor import CPU_PLACE, DenseTensor

__all__ = ["ArrayToLoDTensorOp"]


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


op_hooks("array_to_lod_tensor", operator_class=ArrayToLoDTensorOp)

