"""The operator class hook of lod_tensor_to_array."""

from __future__ import annotations

import numpy as np

from fluid_compat.framework.lod_rank_table import append_lod, sub_lod_and_offset
from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.framework.scope import LoDTensorArray
from fluid_compat.operators.base import OperatorBase
from fluid_compat.operators.op_values import EMPTY_VAR, op_name, rank_table_input, tensor_input
from phi.core.errors import InvalidArgument
from phi.core.tensor import CPU_PLACE, DenseTensor

__all__ = ["LoDTensorToArrayOp"]


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


op_hooks("lod_tensor_to_array", operator_class=LoDTensorToArrayOp)

