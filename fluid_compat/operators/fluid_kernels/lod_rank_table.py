"""The rank-table ops of the old DynamicRNN: lod_rank_table, max_sequence_len,
reorder_lod_tensor_by_rank (+ _grad), shrink_rnn_memory (+ _grad).

Operator classes (Paddle runs them without a kernel: OperatorBase subclasses in
lod_rank_table_op.cc, max_sequence_len_op.cc, reorder_lod_tensor_by_rank_op.cc,
shrink_rnn_memory_op.cc).  The table itself is fluid_compat.framework.lod_rank_table's
LoDRankTable.  They compute on the host (numpy) and write CPU tensors.
"""

from __future__ import annotations

import numpy as np

from fluid_compat.framework.lod_rank_table import LoDRankTable, append_lod, sub_lod_and_offset
from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.base import OperatorBase
from fluid_compat.operators.op_values import (
    op_name,
    optional_tensor,
    rank_table_input,
    set_output,
    tensor_input,
)
from phi.core.errors import InvalidArgument, OutOfRange
from phi.core.tensor import CPU_PLACE, DenseTensor

__all__ = [
    "LoDRankTableOp",
    "MaxSequenceLenOp",
    "ReorderLoDTensorByRankGradOp",
    "ReorderLoDTensorByRankOp",
    "ShrinkRNNMemoryGradOp",
    "ShrinkRNNMemoryOp",
    "step_index",
]


def _like(x: DenseTensor, data: np.ndarray, lod=()) -> DenseTensor:
    return DenseTensor(data, x.dtype, CPU_PLACE, x.layout, tuple(tuple(v) for v in lod))


class LoDRankTableOp(OperatorBase):
    """Out = the LoDRankTable of X's LoD at attribute ``level``."""

    def run_impl(self, scope, place) -> None:
        x = tensor_input(self, scope, "X")
        level = int(self.attrs.get("level", 0))
        table = LoDRankTable.from_lod(x.lod, level,
                                      f"Operator {op_name(self)}: input X (`{self.input('X')}`)")
        set_output(self, scope, "Out", table)


class MaxSequenceLenOp(OperatorBase):
    """Out = [the length of the table's first (longest) sequence], int64 of shape [1]."""

    def run_impl(self, scope, place) -> None:
        table = rank_table_input(self, scope)
        if not table.items:
            raise InvalidArgument(f"Operator {op_name(self)}: the rank table "
                                  f"`{self.input('RankTable')}` holds no sequence.")
        set_output(self, scope, "Out",
                   DenseTensor.from_numpy(np.array([table.items[0][1]], np.int64)))


def _sequences(op, x: DenseTensor) -> list[tuple[int, int, tuple]]:
    """X's sequences of LoD level 0 as (first row, rows, lengths below): each row one
    sequence when X has no LoD (the output of a sequence_pool, for instance)."""
    if not x.lod:
        return [(i, 1, ()) for i in range(x.dims[0])]
    out = []
    for i in range(len(x.lod[0]) - 1):
        lengths, (begin, end) = sub_lod_and_offset(x.lod, i, i + 1, 0, f"Operator {op_name(op)}")
        out.append((begin, end - begin, lengths))
    return out


def _gather_sequences(op, x: DenseTensor, seqs, order) -> DenseTensor:
    """X's sequences ``seqs[k]`` for k in ``order``, one after the other, with their LoD; rows
    no sequence fills (a table of fewer sequences than X) stay zero (Paddle leaves them
    unwritten)."""
    host = np.asarray(x.numpy())
    out = np.zeros_like(host)
    lod: list[list[int]] = []
    row = 0
    for k in order:
        begin, n, lengths = seqs[k]
        if lengths:
            append_lod(lod, lengths, f"Operator {op_name(op)}")
        out[row:row + n] = host[begin:begin + n]
        row += n
    return _like(x, out, lod)


class ReorderLoDTensorByRankOp(OperatorBase):
    """Out = X's level-0 sequences in the order of the rank table's indices."""

    def run_impl(self, scope, place) -> None:
        x = tensor_input(self, scope, "X")
        table = rank_table_input(self, scope)
        seqs = _sequences(self, x)
        for index, _ in table.items:
            if index >= len(seqs):
                raise OutOfRange(f"Operator {op_name(self)}: the rank table "
                                 f"`{self.input('RankTable')}` names sequence {index}, X "
                                 f"(`{self.input('X')}`) has {len(seqs)}.")
        set_output(self, scope, "Out", _gather_sequences(self, x, seqs, table.indices))


class ReorderLoDTensorByRankGradOp(OperatorBase):
    """Out (X@GRAD) = X (Out@GRAD, in rank order) put back in the original order: the k-th
    sequence goes where the table's k-th index says."""

    def run_impl(self, scope, place) -> None:
        dout = tensor_input(self, scope, "X")
        table = rank_table_input(self, scope)
        seqs = _sequences(self, dout)
        if len(table.items) > len(seqs):
            raise OutOfRange(f"Operator {op_name(self)}: the rank table "
                             f"`{self.input('RankTable')}` holds {len(table.items)} sequences, "
                             f"the gradient (`{self.input('X')}`) {len(seqs)}.")
        order = [k for k, _ in sorted(enumerate(table.indices), key=lambda p: p[1])]
        set_output(self, scope, "Out", _gather_sequences(self, dout, seqs, order))


def step_index(op, scope, slot: str = "I") -> int:
    """The step / array index of input ``slot``: one int64 element (Paddle's ArrayOp)."""
    t = tensor_input(op, scope, slot)
    host = np.asarray(t.numpy())
    if host.size != 1:
        raise InvalidArgument(f"Operator {op_name(op)}: input `{slot}` (`{op.input(slot)}`) "
                              f"must have numel 1, it has {host.size} (shape "
                              f"{list(host.shape)}).")
    value = host.reshape(-1)[0]
    if not np.issubdtype(host.dtype, np.integer) or value < 0:
        raise InvalidArgument(f"Operator {op_name(op)}: input `{slot}` (`{op.input(slot)}`) "
                              f"must be a non-negative integer index, got {value!r} "
                              f"({host.dtype}).")
    return int(value)


class ShrinkRNNMemoryOp(OperatorBase):
    """Out = the rows of X (a step memory) that belong to the sequences still running at step
    I: those of the table longer than I (the table is longest first)."""

    def run_impl(self, scope, place) -> None:
        x = tensor_input(self, scope, "X")
        offset = step_index(self, scope)
        table = rank_table_input(self, scope)
        keep = sum(1 for _, n in table.items if n > offset)
        height, lod = keep, ()
        if x.lod and len(x.lod[0]) > keep:
            if len(x.lod) > 1:
                lengths, (_, height) = sub_lod_and_offset(x.lod, 0, keep, 0,
                                                          f"Operator {op_name(self)}")
                grown: list[list[int]] = []
                append_lod(grown, lengths, f"Operator {op_name(self)}")
                lod = grown
            else:
                lod = (x.lod[0][:keep + 1],)
                height = lod[0][-1]
        host = np.asarray(x.numpy())
        if height > host.shape[0]:
            raise OutOfRange(f"Operator {op_name(self)}: {height} rows of X (`{self.input('X')}`) "
                             f"are kept at step {offset}, it has {host.shape[0]}.")
        # Paddle leaves Out unwritten when no row is kept; an empty tensor says the same here
        set_output(self, scope, "Out", _like(x, host[:height].copy(), lod))


class ShrinkRNNMemoryGradOp(OperatorBase):
    """X@GRAD = Out@GRAD in X's top rows, zeros below (all zeros without Out@GRAD); X's LoD."""

    def run_impl(self, scope, place) -> None:
        x = tensor_input(self, scope, "X")
        dout = optional_tensor(self, scope, "Out@GRAD")
        dx = np.zeros(x.dims, dtype=np.asarray(x.numpy()).dtype)
        if dout is not None:
            g = np.asarray(dout.numpy())
            if g.shape[0] > dx.shape[0] or g.shape[1:] != dx.shape[1:]:
                raise InvalidArgument(f"Operator {op_name(self)}: Out@GRAD "
                                      f"(`{self.input('Out@GRAD')}`) of shape {list(g.shape)} "
                                      f"does not fit in X of shape {list(dx.shape)}.")
            dx[:g.shape[0]] = g
        set_output(self, scope, "X@GRAD", _like(x, dx, x.lod))


op_hooks("lod_rank_table", operator_class=LoDRankTableOp)


op_hooks("max_sequence_len", operator_class=MaxSequenceLenOp)


op_hooks("reorder_lod_tensor_by_rank", operator_class=ReorderLoDTensorByRankOp)


op_hooks("reorder_lod_tensor_by_rank_grad", operator_class=ReorderLoDTensorByRankGradOp)


op_hooks("shrink_rnn_memory", operator_class=ShrinkRNNMemoryOp)


op_hooks("shrink_rnn_memory_grad", operator_class=ShrinkRNNMemoryGradOp)

