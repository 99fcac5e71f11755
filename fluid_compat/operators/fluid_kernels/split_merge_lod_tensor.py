"""split_lod_tensor, merge_lod_tensor and merge_lod_tensor_infer: the old IfElse's routing of a
batch's sequences (or rows) to a true and a false branch by a bool Mask, and back.

Operator classes (Paddle's OperatorBase subclasses of split_lod_tensor_op.cc and
merge_lod_tensor_op.cc), computed on the host.  Mask has one entry per sequence of X's LoD
level ``level`` (per row when X has no LoD); each is each other's gradient.  Facts kept from
Paddle 2.6.2: merge takes the next sequence of a branch only after a non-empty one (an empty
sequence does not move its branch on), and puts X's LoD levels above ``level`` on top of Out;
merge_lod_tensor_infer then empties InTrue and InFalse.
"""

from __future__ import annotations

import numpy as np

from fluid_compat.framework.lod_rank_table import append_lod, sub_lod_and_offset
from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.base import OperatorBase
from fluid_compat.operators.op_values import (
    EMPTY_VAR,
    op_name,
    optional_tensor,
    set_output,
    tensor_input,
)
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.tensor import CPU_PLACE, DenseTensor

__all__ = ["MergeLoDTensorInferOp", "MergeLoDTensorOp", "SplitLoDTensorOp"]


def _mask(op, scope) -> np.ndarray:
    m = tensor_input(op, scope, "Mask")
    if m.dtype is not DataType.BOOL:
        raise InvalidArgument(f"Operator {op_name(op)}: Mask (`{op.input('Mask')}`) must be a "
                              f"bool tensor, got {m.dtype}.")
    if len(m.dims) != 2 or m.dims[1] != 1:
        raise InvalidArgument(f"Operator {op_name(op)}: Mask (`{op.input('Mask')}`) must be a "
                              f"2-D tensor whose second dim is 1 (one bool per sequence), got "
                              f"shape {list(m.dims)}.")
    return np.asarray(m.numpy()).reshape(-1)


def _level(op) -> int:
    level = int(op.attrs.get("level") or 0)
    if level < 0:
        raise InvalidArgument(f"Operator {op_name(op)}: attribute level must be >= 0, got "
                              f"{level}.")
    return level


class SplitLoDTensorOp(OperatorBase):
    """OutTrue / OutFalse = X's sequences of level ``level`` whose Mask entry is true / false,
    in order, with the LoD of the levels from ``level`` down."""

    def run_impl(self, scope, place) -> None:
        x = tensor_input(self, scope, "X")
        mask = _mask(self, scope)
        level = _level(self)
        what = f"Operator {op_name(self)}"
        if x.lod and level >= len(x.lod):
            raise InvalidArgument(f"{what}: attribute level={level}, X (`{self.input('X')}`) "
                                  f"has {len(x.lod)} LoD level(s).")
        host = np.asarray(x.numpy())
        parts: dict[bool, tuple[list, list]] = {True: ([], []), False: ([], [])}
        for i, flag in enumerate(mask):
            lengths, (begin, end) = sub_lod_and_offset(x.lod, i, i + 1, level,
                                                       f"{what}: Mask entry {i}")
            if end > host.shape[0]:
                raise InvalidArgument(f"{what}: Mask has {mask.size} entries, X "
                                      f"(`{self.input('X')}`) has {host.shape[0]} rows.")
            lod, pieces = parts[bool(flag)]
            append_lod(lod, lengths, what)
            pieces.append(host[begin:end])
        for slot, flag in (("OutTrue", True), ("OutFalse", False)):
            lod, pieces = parts[flag]
            data = np.concatenate(pieces) if pieces else host[:0].copy()
            set_output(self, scope, slot, DenseTensor(data, x.dtype, CPU_PLACE, x.layout,
                                                      tuple(tuple(v) for v in lod)))


class MergeLoDTensorOp(OperatorBase):
    """Out = the sequences of InTrue and InFalse interleaved as Mask says, with X's LoD levels
    above ``level`` on top."""

    def merge(self, scope) -> DenseTensor:
        x = tensor_input(self, scope, "X")
        mask = _mask(self, scope)
        level = _level(self)
        what = f"Operator {op_name(self)}"
        branches = {True: optional_tensor(self, scope, "InTrue"),
                    False: optional_tensor(self, scope, "InFalse")}
        if all(b is None or b.numel == 0 for b in branches.values()):
            raise InvalidArgument(f"{what}: Input(InTrue) (`{self.input('InTrue')}`) or "
                                  f"Input(InFalse) (`{self.input('InFalse')}`) should be "
                                  "initialized.")
        like = branches[True] if branches[True] is not None else branches[False]
        if level > len(x.lod):
            raise InvalidArgument(f"{what}: attribute level={level}, X (`{self.input('X')}`) "
                                  f"has {len(x.lod)} LoD level(s).")
        hosts = {k: None if b is None else np.asarray(b.numpy()) for k, b in branches.items()}
        inner = tuple(like.dims[1:])
        for _k, h in hosts.items():
            if h is not None and h.shape[0] and tuple(h.shape[1:]) != inner:
                raise InvalidArgument(f"{what}: InTrue and InFalse must agree in all dims but "
                                      f"the first, got {list(like.dims)} and {list(h.shape)}.")
        rows = sum(0 if h is None else h.shape[0] for h in hosts.values())
        taken = {True: 0, False: 0}
        lod: list[list[int]] = []
        pieces = []
        for i, flag in enumerate(mask):
            flag = bool(flag)
            branch, h = branches[flag], hosts[flag]
            slot = "InTrue" if flag else "InFalse"
            if branch is None:
                raise InvalidArgument(f"{what}: Mask entry {i} takes a sequence of {slot} "
                                      f"(`{self.input(slot)}`), which holds no tensor.")
            if not branch.lod and taken[flag] >= h.shape[0]:
                raise InvalidArgument(f"{what}: Mask takes more rows of {slot} "
                                      f"(`{self.input(slot)}`) than its {h.shape[0]}.")
            lengths, (begin, end) = sub_lod_and_offset(branch.lod, taken[flag], taken[flag] + 1,
                                                       0, f"{what}: {slot}")
            append_lod(lod, lengths, what)
            if end == begin:
                continue  # Paddle's quirk: an empty sequence does not move its branch on
            pieces.append(h[begin:end])
            taken[flag] += 1
        dtype = np.asarray(like.numpy()).dtype
        data = np.concatenate(pieces) if pieces else np.zeros((0, *inner), dtype)
        if data.shape[0] < rows:  # rows no Mask entry took: Paddle leaves them unwritten
            data = np.concatenate([data, np.zeros((rows - data.shape[0], *inner), dtype)])
        out_lod = tuple(x.lod[:level]) + tuple(tuple(v) for v in lod)
        return DenseTensor(data, like.dtype, CPU_PLACE, like.layout, out_lod)

    def run_impl(self, scope, place) -> None:
        set_output(self, scope, "Out", self.merge(scope))


class MergeLoDTensorInferOp(MergeLoDTensorOp):
    """merge_lod_tensor, then InTrue and InFalse emptied (inference frees the branches)."""

    def run_impl(self, scope, place) -> None:
        out = self.merge(scope)
        set_output(self, scope, "Out", out)
        for slot in ("InTrue", "InFalse"):
            for name in self.inputs.get(slot, ()):
                var = scope.find_var(name) if name != EMPTY_VAR else None
                if var is not None:
                    var.value = DenseTensor()


op_hooks("split_lod_tensor", operator_class=SplitLoDTensorOp)


op_hooks("merge_lod_tensor", operator_class=MergeLoDTensorOp)


op_hooks("merge_lod_tensor_infer", operator_class=MergeLoDTensorInferOp)

