"""Helpers shared by the SelectedRows kernels (phi.kernels.selected_rows): making a
SelectedRows, merging its rows, the dense gradient of sparse rows."""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.selected_rows import SelectedRows, is_selected_rows

__all__ = ["dense_grad", "keep_rows", "make_selected_rows", "merge_rows", "need_sr"]


def make_selected_rows(ctx, rows, height, array) -> SelectedRows:
    return SelectedRows(rows, height, array, ctx.data_type(array), ctx.place)


def need_sr(op: str, slot: str, x) -> SelectedRows:
    if not is_selected_rows(x):
        raise InvalidArgument(f"{op}: input `{slot}` must be a SelectedRows, got a "
                              f"{type(x).__name__}.")
    return x


def merge_rows(x: SelectedRows) -> tuple[list[int], np.ndarray]:
    """Paddle's MergeAdd: unique rows ascending, the values of repeated rows summed."""
    if not x.rows:
        return [], x.data[:0]
    unique, inverse = np.unique(np.asarray(x.rows, np.int64), return_inverse=True)
    out = np.zeros((len(unique), *x.data.shape[1:]), dtype=x.data.dtype)
    np.add.at(out, inverse.reshape(-1), x.data)
    return [int(r) for r in unique], out


def dense_grad(op: str, param: np.ndarray, grad: SelectedRows) -> tuple[list[int], np.ndarray]:
    """(merged rows, the gradient as a dense array of param's shape, absent rows zero)."""
    if grad.height != param.shape[0] or grad.data.shape[1:] != param.shape[1:]:
        raise InvalidArgument(f"{op}: Grad (SelectedRows of height {grad.height}, value "
                              f"{list(grad.data.shape)}) does not fit Param {list(param.shape)}.")
    rows, value = merge_rows(grad)
    dense = np.zeros(param.shape, dtype=param.dtype)
    if rows:
        dense[np.asarray(rows)] = value
    return rows, dense


def keep_rows(new: np.ndarray, old: np.ndarray, rows: list[int]) -> np.ndarray:
    """``new`` on ``rows``, ``old`` elsewhere (an update that touches only the gradient's rows)."""
    out = old.copy()
    if rows:
        out[np.asarray(rows)] = new[np.asarray(rows)]
    return out
