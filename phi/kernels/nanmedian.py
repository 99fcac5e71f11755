"""The ``nanmedian`` and ``nanmedian_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import median_out_dims, reduce_axes
from phi.kernels.funcs import (INTEGERS, as_array, prod, quiet, trunc_divide)
from phi.kernels.funcs.backward import grad_kernel

__all__ = ["nanmedian"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
MINMAX_DTYPES = ["float32", "float64", "int32", "int64"]


_INDICES_OUT = {1: {"dtype": DataType.INT64}}


# -- nanmedian / mode / kthvalue ------------------------------------------------------------------

def _rows_last(xp, x, axes: tuple[int, ...]):
    """x with ``axes`` moved last and flattened into one: (rows, width)."""
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = xp.transpose(x, (*rest, *axes))
    return xp.reshape(moved, (prod(x.shape[i] for i in rest), prod(x.shape[i] for i in axes)))


@register_kernel("nanmedian", ("CPU", "GPU"), dtypes=MINMAX_DTYPES, output_defs=_INDICES_OUT)
def nanmedian(ctx, x: Tensor, axis: IntArray, keepdim: bool) -> tuple[Tensor, Tensor]:
    """The median of the non-NaN values over ``axis`` (all axes when empty): the mean of the two
    middle values for an even count, in x's dtype (integers truncate); all NaN gives NaN.
    MedianIndex has numel * 2 entries as Paddle's: the first 2 * rows are each row's middle
    indices (equal values in stable order), -1 for an all-NaN row; the rest, which Paddle
    leaves uninitialized, 0."""
    xp = ctx.xp
    axes = tuple(range(x.ndim)) if not axis.data or x.ndim <= 1 else reduce_axes(
        x.shape, axis.data)
    if x.size == 0 or prod(x.shape[i] for i in axes) == 0:
        raise InvalidArgument("nanmedian: the input Tensor x's reduced size should not be 0, "
                              f"but shape is {list(x.shape)} now.")
    rows = _rows_last(xp, x, axes)
    width = rows.shape[1]
    order = xp.argsort(rows, axis=1, kind="stable")  # NaN sorts last
    srt = xp.take_along_axis(rows, order, axis=1)
    valid = (width - xp.sum(xp.isnan(rows), axis=1)) if rows.dtype.kind == "f" else \
        xp.full((rows.shape[0],), width)
    right = xp.clip(valid // 2, 0, width - 1)
    left = xp.where((valid % 2 == 0) & (right > 0), right - 1, right)
    r = xp.arange(rows.shape[0])
    lo, hi = srt[r, left], srt[r, right]
    with quiet(xp):
        if ctx.data_type(x) in INTEGERS:
            med = trunc_divide(xp, lo + hi, xp.asarray(2, dtype=x.dtype))
        else:
            med = (lo + hi) / x.dtype.type(2)  # an all-NaN row: NaN from its first slot
    index = xp.zeros((x.size * 2,), dtype=xp.int64)
    pairs = xp.stack([order[r, left], order[r, right]], axis=1)
    index[:pairs.size] = xp.reshape(xp.where((valid == 0)[:, None], -1, pairs), (-1,))
    out = xp.reshape(as_array(xp, med).astype(x.dtype),
                     median_out_dims(x.shape, axis.data, keepdim))
    return out, index


_ANY = {"dtype": DataType.ALL_DTYPE}


_SORT = ["float32", "float64", "int32", "int64"]


@grad_kernel("nanmedian_grad", ("CPU", "GPU"), dtypes=_SORT,
                 input_defs={"median_index": _ANY})
def nanmedian_grad(ctx, x: Tensor, median_index: Tensor, out_grad: Tensor, axis: IntArray,
                   keepdim: bool) -> Tensor:
    """out_grad to the median's element (halves to the two middle ones of an even count;
    nothing for an all-NaN row), rows taken over the reduced axes moved last."""
    g = np.asarray(out_grad).reshape(-1)
    if x.size == 0:
        return np.zeros(x.shape, g.dtype)
    axes = sorted({int(a) % x.ndim for a in axis.data}) if x.ndim > 1 else []
    perm = [a for a in range(x.ndim) if a not in axes] + axes if axes else list(range(x.ndim))
    moved = tuple(x.shape[a] for a in perm)
    stride = int(np.prod([x.shape[a] for a in axes], dtype=np.int64)) if axes else x.size
    rows = x.size // stride
    m = np.asarray(median_index).reshape(-1).astype(np.int64)
    dx = np.zeros((rows, stride), g.dtype)
    for i in range(rows):
        a, b = m[2 * i], m[2 * i + 1]
        if a < 0:
            continue
        if a == b:
            dx[i, a] = g[i]
        else:
            dx[i, a] = g[i] / g.dtype.type(2)
            dx[i, b] = g[i] / g.dtype.type(2)
    dx = dx.reshape(moved) if axes else dx.reshape(x.shape)
    return np.ascontiguousarray(np.transpose(dx, np.argsort(perm))) if axes else dx
