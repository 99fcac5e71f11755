"""SelectedRows: Paddle's sparse row tensor (phi::SelectedRows).

A SelectedRows stands for a ``[height, *value.shape[1:]]`` tensor of which only some rows are
present: ``rows`` (int64 row indices, possibly repeated, in no particular order) and ``value``
(one row of ``value`` per entry of ``rows``); the other rows are zero.  It is the gradient of an
embedding with ``is_sparse=True`` and what the sparse-gradient optimizer kernels take.

Here it is a DenseTensor subclass whose tensor fields (``data``, ``dtype``, ``place``,
``layout``) are those of its value, as Paddle's SelectedRows answers dtype() / place() /
layout() from its value; ``rows`` and ``height`` are its own.  Being a DenseTensor lets the
executor, scope and feeds carry it unchanged; the dispatcher tells it apart (``type(t) is
SelectedRows``) to answer the argument mapping's ``is_selected_rows_input`` and refuses to hand
it to a kernel argument that takes a dense tensor, as Paddle's KernelContext refuses it.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.common.place import Place
from phi.core.errors import InvalidArgument
from phi.core.tensor import CPU_PLACE, DenseTensor

__all__ = ["SelectedRows", "is_selected_rows", "selected_rows"]


class SelectedRows(DenseTensor):
    """rows (int64 indices), height (rows of the full tensor) and the value's tensor fields."""

    __slots__ = ("height", "rows")

    def __init__(self, rows=(), height: int = 0, data: object = None,
                 dtype: DataType | None = None, place: Place = CPU_PLACE,
                 layout: DataLayout = DataLayout.NCHW) -> None:
        super().__init__(data, dtype, place, layout)
        self.rows = [int(r) for r in rows]
        self.height = int(height)

    @property
    def value(self) -> DenseTensor:
        """The value as a plain DenseTensor (Paddle's ``value()``)."""
        return DenseTensor(self.data, self.dtype, self.place, self.layout)

    def complete_dims(self) -> tuple[int, ...]:
        """``[height, *value dims[1:]]`` (Paddle's GetCompleteDims)."""
        dims = tuple(self.dims)
        return (self.height, *dims[1:]) if dims else (self.height,)

    def to_dense(self, xp=np) -> object:
        """The full ``[height, ...]`` array: rows added into zeros (repeated rows summed)."""
        out = xp.zeros(self.complete_dims(), dtype=self.data.dtype)
        if self.rows:
            xp.add.at(out, xp.asarray(self.rows, dtype=np.int64), self.data)
        return out

    def __repr__(self) -> str:
        shape = None if self.data is None else list(self.data.shape)
        return (f"SelectedRows(rows={self.rows}, height={self.height}, value={shape} "
                f"{self.dtype})")


def is_selected_rows(value: object) -> bool:
    return type(value) is SelectedRows


def selected_rows(rows, height: int, value, what: str = "selected_rows") -> SelectedRows:
    """A CPU SelectedRows from ``rows``, ``height`` and a value array whose first dimension is
    ``len(rows)``; InvalidArgument naming ``what`` when they do not fit."""
    array = np.asarray(value)
    rows = [int(r) for r in np.asarray(rows, dtype=np.int64).reshape(-1)]
    if array.ndim == 0 or array.shape[0] != len(rows):
        raise InvalidArgument(f"{what}: the value's first dimension ({list(array.shape)}) must "
                              f"be the number of rows ({len(rows)}).")
    if any(r < 0 or r >= height for r in rows):
        raise InvalidArgument(f"{what}: rows must lie in [0, height={height}), got {rows}.")
    t = DenseTensor.from_numpy(array)
    return SelectedRows(rows, height, t.data, t.dtype)
