"""Helpers shared by the reduction kernels and their grads: half-precision sums in Paddle's
order, the reduced axes, broadcasting a result back to the input's dims."""

from __future__ import annotations



from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.scalar import Scalar
from phi.infermeta.funcs import reduce_axes, reduce_out_dims
from phi.kernels.funcs import (COMPLEX, INTEGERS, as_array, cast_array, prod, quiet,
                               to_half)

__all__ = ["broadcast_back", "eigen_tree_sum", "half_row_sums", "half_sum", "isclose_values",
           "mean_broadcast_back", "reduced_axes"]


def half_sum(ctx, x, axes: tuple[int, ...], keepdim: bool, dtype: DataType):
    """Eigen's sum of half elements as Paddle 2.6.2's CPU runs it (Paddle-made cases
    hb_reduce_sum_*): an accumulator of T, each addition computed in float32 and truncated
    back, in Eigen's order.  A full reduction (every axis) halves the flattened tensor down to
    leaves of at most 1024 elements (Eigen's tree InnerMostDimReducer); a partial one visits
    the reduced elements of each output with the last reduced axis outermost (Eigen's
    GenericDimReducer over row-major strides), except above 6 dims, where Paddle first
    transposes the reduced axes to the end (row-major order)."""
    xp = ctx.xp
    out_shape = reduce_out_dims(x.shape, axes, keepdim)
    f32 = ctx.astype(x, DataType.FLOAT32)
    if len(axes) == x.ndim:
        total = eigen_tree_sum(ctx, xp.reshape(f32, (-1,)), dtype)
        return xp.reshape(to_half(ctx, total, dtype), out_shape)
    axes = sorted(axes)
    keep = [i for i in range(x.ndim) if i not in axes]
    order = axes if x.ndim > 6 else axes[::-1]
    rows = xp.reshape(xp.transpose(f32, (*keep, *order)),
                      (prod(x.shape[i] for i in keep), prod(x.shape[i] for i in axes)))
    return xp.reshape(to_half(ctx, half_row_sums(ctx, rows, dtype), dtype), out_shape)


def half_row_sums(ctx, rows, dtype: DataType):
    """Sums along the last axis of a float32 matrix of half values, in order, each addition
    truncated to ``dtype`` (Eigen's scalar reducer on phi's float16 / bfloat16); float32."""
    xp = ctx.xp
    acc = xp.zeros(rows.shape[:-1], dtype=ctx.xp_dtype(DataType.FLOAT32))
    with quiet(xp):
        for j in range(rows.shape[-1]):
            acc = ctx.astype(to_half(ctx, acc + rows[..., j], dtype), DataType.FLOAT32)
    return acc


def eigen_tree_sum(ctx, flat, dtype: DataType, leaf: int = 1024):
    """Eigen's full sum of a non-vectorizable type: n > leaf elements split into n // 2 and the
    rest, each half summed so, the two sums added (truncated); leaves summed in order."""
    xp = ctx.xp
    leaves: list[tuple[int, int]] = []

    def split(start: int, n: int) -> None:
        if n > leaf:
            split(start, n // 2)
            split(start + n // 2, n - n // 2)
        else:
            leaves.append((start, n))

    split(0, flat.shape[0])
    # every leaf at once: zero padding at the end adds nothing (the accumulator is never -0)
    table = xp.zeros((len(leaves), max(n for _, n in leaves)),
                     dtype=ctx.xp_dtype(DataType.FLOAT32))
    for i, (start, n) in enumerate(leaves):
        table[i, :n] = flat[start:start + n]
    sums = dict(zip((s for s, _ in leaves), half_row_sums(ctx, table, dtype), strict=True))

    def node(start: int, n: int):
        if n <= leaf:
            return sums[start]
        left, right = node(start, n // 2), node(start + n // 2, n - n // 2)
        with quiet(xp):
            return ctx.astype(to_half(ctx, xp.asarray(left + right), dtype), DataType.FLOAT32)

    return node(0, flat.shape[0])


def isclose_values(ctx, x, y, rtol, atol, equal_nan: bool):
    """IscloseFunctor: a == b, or |a - b| <= atol + rtol * |b| (right side rounded to x's type),
    or the two within 1e-15 of each other; NaNs equal only with equal_nan.  Complex compares
    magnitudes and a NaN magnitude counts as close (no comparison holds false there)."""
    xp = ctx.xp
    rtol, atol = float(Scalar(rtol).value), float(Scalar(atol).value)
    with quiet(xp):
        if ctx.data_type(x) in COMPLEX:
            left = xp.abs(x - y)
            right = atol + rtol * xp.abs(y)
            return as_array(xp, ~(left > right))
        t = x.dtype.type
        left = xp.abs(x - y)
        right = xp.asarray(atol + rtol * xp.abs(y.astype(xp.float64))).astype(x.dtype)
        diff = xp.abs(left - right)
        val = (x == y) | (left <= right) | (diff <= t(1e-15))
        nan = xp.isnan(x) | xp.isnan(y)
        nan_val = (xp.isnan(x) == xp.isnan(y)) if equal_nan else xp.zeros_like(val)
        return as_array(xp, xp.where(nan, nan_val, val))


_HALF = (DataType.FLOAT16, DataType.BFLOAT16)


def _dims(dims) -> list[int]:
    data = dims.data if isinstance(dims, IntArray) else dims
    return [int(d) for d in (data or ())]


def reduced_axes(x, dims, reduce_all: bool) -> tuple[int, ...]:
    """The reduced axes as Paddle's recompute_reduce_all: every axis for reduce_all, an empty
    dim list or one naming every dim."""
    return reduce_axes(x.shape, _dims(dims), bool(reduce_all))


def _keep(xp, a, x, axes):
    """``a`` (an output or its gradient) with the reduced axes as size-1 dims of x's rank."""
    if a is None:
        return None
    shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    return xp.reshape(a, shape)


def broadcast_back(xp, a, x, axes):
    """``a`` broadcast back to x's dims."""
    return xp.broadcast_to(_keep(xp, a, x, axes), x.shape)


def mean_broadcast_back(ctx, x, out_grad, axes):
    xp = ctx.xp
    count = prod(x.shape[i] for i in axes)
    dtype = ctx.data_type(out_grad)
    g = broadcast_back(xp, out_grad, x, axes)
    with quiet(xp):
        if dtype in _HALF:
            return to_half(ctx, ctx.astype(g, DataType.FLOAT32) / xp.float32(count), dtype)
        if dtype is DataType.BOOL or dtype in INTEGERS:
            return cast_array(ctx, g.astype(xp.float64) / count, dtype)
        return xp.array(g / g.dtype.type(count), dtype=g.dtype)
