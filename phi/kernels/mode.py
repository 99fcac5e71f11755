"""The ``mode`` and ``mode_grad`` kernels."""

from __future__ import annotations



from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import (owned, stl_sort)
from phi.kernels.funcs.backward import grad_kernel
from phi.kernels.funcs.indexing import nan_last_before, put_at

__all__ = ["mode"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
MINMAX_DTYPES = ["float32", "float64", "int32", "int64"]


_INDICES_OUT = {1: {"dtype": DataType.INT64}}


def _moved(xp, x, axis: int):
    """x with ``axis`` last, as (rows, width), and the kept shape."""
    moved = xp.moveaxis(x, axis, -1)
    return xp.reshape(moved, (-1, x.shape[axis])), moved.shape[:-1]


def _with_axis(xp, values, kept_shape, axis: int, keepdim: bool):
    out = xp.reshape(values, kept_shape)
    return xp.expand_dims(out, axis) if keepdim else out


@register_kernel("mode", ("CPU", "GPU"), dtypes=MINMAX_DTYPES, output_defs=_INDICES_OUT)
def mode(ctx, x: Tensor, axis: int, keepdim: bool) -> tuple[Tensor, Tensor]:
    """(most frequent value, its index) along ``axis``: on equal counts the smallest value;
    the index is the last of that value's run after libstdc++'s std::sort of (value, index)
    pairs (NaNs last, each NaN its own run), as Paddle's GetMode."""
    xp = ctx.xp
    if x.ndim == 0:
        return owned(xp, x), xp.zeros((), dtype=xp.int64)
    axis = axis + x.ndim if axis < 0 else axis
    rows, kept = _moved(xp, x, axis)
    width = rows.shape[1]
    comp = nan_last_before(False)
    values, indices = [], []
    for row in rows.tolist():
        pairs = list(zip(row, range(width), strict=True))
        stl_sort.sort(pairs, 0, width, comp)
        best, best_i, best_n, run = 0, 0, 0, 0
        for i, (v, j) in enumerate(pairs):
            run += 1
            if i == width - 1 or pairs[i + 1][0] != v:
                if run > best_n:
                    best, best_i, best_n = v, j, run
                run = 0
        values.append(best)
        indices.append(best_i)
    out = xp.asarray(values, dtype=x.dtype)
    idx = xp.asarray(indices, dtype=xp.int64)
    return (_with_axis(xp, out, kept, axis, keepdim), _with_axis(xp, idx, kept, axis, keepdim))


_ANY = {"dtype": DataType.ALL_DTYPE}


_SORT = ["float32", "float64", "int32", "int64"]


@grad_kernel("mode_grad", ("CPU", "GPU"), dtypes=_SORT, input_defs={"indices": _ANY})
def mode_grad(ctx, x: Tensor, indices: Tensor, out_grad: Tensor, axis: int,
              keepdim: bool) -> Tensor:
    """out_grad put at the mode's index, zeros elsewhere."""
    return put_at(ctx, x, indices, out_grad, axis, keepdim, ones_0d=True)
