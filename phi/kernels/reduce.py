"""Reduction kernels: mean, sum, max, min, prod, all, any (Paddle's
paddle/phi/kernels/cpu/reduce_*_kernel.cc, cpu/reduce.h, funcs/reduce_functor.h)."""

from __future__ import annotations

import math

import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import reduce_axes, reduce_out_dims, sum_out_dtype
from phi.kernels.funcs import (
    INTEGERS,
    as_array,
    cast_array,
    prod,
    quiet,
    to_half,
    trunc_divide,
)

__all__ = ["eigen_tree_sum", "half_row_sums", "reduce_mean", "reduce_sum"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
MEAN_DTYPES = ["float32", "float64", "bool", "int32", "int64", "complex64", "complex128"]
SUM_DTYPES = ["bool", "float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16",
              "int32", "int64", "complex64", "complex128"]


def _refuse_empty(x) -> None:
    # Paddle 2.6.2's CPU ReduceKernelImpl enforces input.numel() > 0 for sum and mean too
    # (checked with the wheel for every dtype, dim and reduce_all: conformance test_reduce)
    if x.size == 0:
        raise InvalidArgument("Tensor need be reduced must not empty.")


@register_kernel("mean", ("CPU", "GPU"), dtypes=MEAN_DTYPES)
def reduce_mean(ctx, x: Tensor, axis: IntArray, keepdim: bool) -> Tensor:
    """Kernel ``mean``: the mean over ``axis`` (all axes when empty), in x's dtype."""
    xp = ctx.xp
    _refuse_empty(x)
    dtype = ctx.data_type(x)
    axes = reduce_axes(x.shape, axis.data)
    count = prod(x.shape[a] for a in axes)
    # 2.6.2 reduces with Eigen's MeanReducer in T (the cast to float for integer inputs came
    # later): it accumulates in T and divides by T(count).
    if dtype is DataType.BOOL:
        # bool accumulation is logical or, and or / true is the or: the mean of bools is any()
        return as_array(xp, xp.any(x, axis=axes, keepdims=keepdim))
    if dtype in INTEGERS:
        # the sum wraps in T, then C++ integer division truncates toward zero
        total = as_array(xp, xp.sum(x, axis=axes, keepdims=keepdim, dtype=x.dtype))
        return trunc_divide(xp, total, ctx.asarray(count, dtype))
    with quiet(xp):
        return as_array(xp, xp.mean(x, axis=axes, keepdims=keepdim))


@register_kernel("sum", ("CPU", "GPU"), dtypes=SUM_DTYPES,
                 output_defs={0: {"dtype": DataType.UNDEFINED}})
def reduce_sum(ctx, x: Tensor, axis: IntArray, dtype: DataType, keepdim: bool) -> Tensor:
    """Kernel ``sum``: the sum over ``axis``; bool/int32 sum to int64 unless ``dtype`` is given."""
    xp = ctx.xp
    _refuse_empty(x)
    out_dtype = sum_out_dtype(ctx.data_type(x), dtype)
    axes = reduce_axes(x.shape, axis.data)
    # Paddle casts x to the output dtype first (CastKernel), then sums in that type: int8
    # sums wrap in int8, a bool sum with dtype=bool is a logical or
    if ctx.data_type(x) is not out_dtype:
        x = cast_array(ctx, x, out_dtype)
    if out_dtype in (DataType.FLOAT16, DataType.BFLOAT16):
        return _half_sum(ctx, x, axes, keepdim, out_dtype)
    with quiet(xp):
        return as_array(xp, xp.sum(x, axis=axes, keepdims=keepdim,
                                   dtype=ctx.xp_dtype(out_dtype)))


def _half_sum(ctx, x, axes: tuple[int, ...], keepdim: bool, dtype: DataType):
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


@register_kernel("sum_raw", ("CPU", "GPU"), dtypes=SUM_DTYPES,
                 output_defs={0: {"dtype": DataType.UNDEFINED}})
def reduce_sum_raw(ctx, x: Tensor, axis: IntArray, keepdim: bool, reduce_all: bool,
                   dtype: DataType) -> Tensor:
    """Kernel ``sum_raw`` (legacy reduce_sum with reduce_all): ``sum`` over all axes when
    ``reduce_all``."""
    if reduce_all:
        axis = IntArray(())
    return reduce_sum(ctx, x, axis, dtype, keepdim)


__all__ += ["reduce_sum_raw"]


@register_kernel("mean_raw", ("CPU", "GPU"), dtypes=MEAN_DTYPES)
def reduce_mean_raw(ctx, x: Tensor, axis: IntArray, keepdim: bool, reduce_all: bool) -> Tensor:
    """Kernel ``mean_raw`` (legacy reduce_mean with reduce_all): ``mean`` over all axes when
    ``reduce_all``."""
    if reduce_all:
        axis = IntArray(())
    return reduce_mean(ctx, x, axis, keepdim)


__all__ += ["reduce_mean_raw"]


# -- max / min / prod / all / any ------------------------------------------------------------
# Legacy reduce_max & co. run `<name>` (dim, keep_dim) unless reduce_all is set, then the `_raw`
# kernel with reduce_all (prod: `prod_infer` and `prod`).  An empty input is refused, as
# Paddle's reduce functions refuse it.

MAX_MIN_PROD_DTYPES = ["float32", "float64", "int32", "int64"]
ALL_ANY_DTYPES = ["float32", "float64", "int32", "int64", "bool"]


def _reduce(ctx, x, axis, keepdim: bool, reduce_all: bool, fn, name: str):
    xp = ctx.xp
    if x.size == 0:
        if name in ("all", "any"):
            raise InvalidArgument("The dims of Input(X) should be greater than 0.")
        raise InvalidArgument("Tensor need be reduced must not empty.")
    axes = reduce_axes(x.shape, () if reduce_all else axis, reduce_all)
    with quiet(xp):
        return as_array(xp, fn(x, axis=axes, keepdims=keepdim))


def _nan_skipping(xp, reducer):
    """max / min as Paddle's CPU Eigen reductions treat NaN (see _eigen_nan_minmax)."""
    def fn(x, axis, keepdims):
        if x.dtype.kind != "f" or not bool(xp.isnan(x).any()):
            return reducer(x, axis=axis, keepdims=keepdims)
        return _eigen_nan_minmax(xp, reducer is xp.min, x, axis, keepdims)
    return fn


def _seq_fold(xp, is_min, rows):
    """Eigen's scalar fold acc = std::min(t, acc) (std::max) along the last axis, from +-inf:
    a NaN element replaces the accumulator and the next element replaces the NaN, so the
    result is the extreme of the elements after the last NaN (NaN when the last one is)."""
    k = rows.shape[-1]
    pos = xp.arange(k)
    last_nan = xp.max(xp.where(xp.isnan(rows), pos, -1), axis=-1, keepdims=True, initial=-1)
    fill = xp.inf if is_min else -xp.inf
    kept = xp.where(pos > last_nan, rows, fill)
    out = kept.min(axis=-1, initial=fill) if is_min else kept.max(axis=-1, initial=fill)
    return xp.where(last_nan[..., 0] == k - 1, xp.nan, out).astype(rows.dtype)


def _eigen_nan_minmax(xp, is_min, x, axes, keepdims):
    """Paddle 2.6.2's CPU max / min on floats holding NaN (checked against the wheel on 1,300
    random NaN patterns, conformance cases reduce_*-nan): a partial reduction folds each output
    in memory order with Eigen's scalar rule (_seq_fold); a full reduction (every axis) runs
    Eigen's vectorized InnerMostDimReducer: whole packets (8 float32 / 4 float64 lanes) skip
    NaN, the tail is folded with the scalar rule, and a NaN tail result wins the final step.
    (Inputs above 8192 elements, where Eigen splits the reduction in a tree, are treated as
    one leaf.)"""
    nd = x.ndim
    axes = tuple(sorted(a % nd for a in axes)) if nd else ()
    fill = xp.inf if is_min else -xp.inf
    if len(axes) == nd:
        flat = x.reshape(-1)
        v = flat.size // (8 if x.dtype == xp.float32 else 4) * (8 if x.dtype == xp.float32
                                                                  else 4)
        head = flat[:v][~xp.isnan(flat[:v])]
        pr = (head.min(initial=fill) if is_min else head.max(initial=fill))
        tail = _seq_fold(xp, is_min, flat[v:].reshape(1, -1))[0] if flat.size > v else fill
        out = xp.asarray(pr if (pr < tail if is_min else pr > tail) else tail, x.dtype)
        return out.reshape((1,) * nd) if keepdims else out
    kept = [a for a in range(nd) if a not in axes]
    moved = xp.transpose(x, kept + list(axes))
    out_shape = [x.shape[a] for a in kept]
    res = _seq_fold(xp, is_min, moved.reshape([*out_shape, -1])).reshape(out_shape)
    if keepdims:
        res = res.reshape([1 if a in axes else x.shape[a] for a in range(nd)])
    return res


@register_kernel("max", ("CPU", "GPU"), dtypes=MAX_MIN_PROD_DTYPES)
def reduce_max(ctx, x: Tensor, axis: IntArray, keepdim: bool) -> Tensor:
    """The maximum over ``axis`` (all axes when empty)."""
    return _reduce(ctx, x, axis.data, keepdim, False, _nan_skipping(ctx.xp, ctx.xp.max), "max")


@register_kernel("max_raw", ("CPU", "GPU"), dtypes=MAX_MIN_PROD_DTYPES)
def reduce_max_raw(ctx, x: Tensor, axis: IntArray, keepdim: bool, reduce_all: bool) -> Tensor:
    """``max`` over all axes when ``reduce_all``."""
    return _reduce(ctx, x, axis.data, keepdim, reduce_all, _nan_skipping(ctx.xp, ctx.xp.max),
                   "max")


@register_kernel("min", ("CPU", "GPU"), dtypes=MAX_MIN_PROD_DTYPES)
def reduce_min(ctx, x: Tensor, axis: IntArray, keepdim: bool) -> Tensor:
    """The minimum over ``axis`` (all axes when empty)."""
    return _reduce(ctx, x, axis.data, keepdim, False, _nan_skipping(ctx.xp, ctx.xp.min), "min")


@register_kernel("min_raw", ("CPU", "GPU"), dtypes=MAX_MIN_PROD_DTYPES)
def reduce_min_raw(ctx, x: Tensor, axis: IntArray, keepdim: bool, reduce_all: bool) -> Tensor:
    """``min`` over all axes when ``reduce_all``."""
    return _reduce(ctx, x, axis.data, keepdim, reduce_all, _nan_skipping(ctx.xp, ctx.xp.min),
                   "min")


def _prod(xp):
    return lambda x, axis, keepdims: xp.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


@register_kernel("prod_infer", ("CPU", "GPU"), dtypes=MAX_MIN_PROD_DTYPES)
def reduce_prod_infer(ctx, x: Tensor, axis: IntArray, keepdim: bool) -> Tensor:
    """The product over ``axis`` in x's dtype (integers wrap)."""
    return _reduce(ctx, x, axis.data, keepdim, False, _prod(ctx.xp), "prod")


@register_kernel("prod", ("CPU", "GPU"), dtypes=MAX_MIN_PROD_DTYPES)
def reduce_prod(ctx, x: Tensor, axis: IntArray, keepdim: bool, reduce_all: bool) -> Tensor:
    """``prod_infer`` over all axes when ``reduce_all``."""
    return _reduce(ctx, x, axis.data, keepdim, reduce_all, _prod(ctx.xp), "prod")


_BOOL_OUT = {0: {"dtype": DataType.BOOL}}


def _truth(xp, reducer):
    return lambda x, axis, keepdims: reducer(x != 0, axis=axis, keepdims=keepdims)


@register_kernel("all", ("CPU", "GPU"), dtypes=ALL_ANY_DTYPES, output_defs=_BOOL_OUT)
def reduce_all_kernel(ctx, x: Tensor, axis: list[int], keepdim: bool) -> Tensor:
    """Whether every element over ``axis`` is non-zero (NaN counts as true)."""
    return _reduce(ctx, x, axis, keepdim, False, _truth(ctx.xp, ctx.xp.all), "all")


@register_kernel("all_raw", ("CPU", "GPU"), dtypes=ALL_ANY_DTYPES, output_defs=_BOOL_OUT)
def reduce_all_raw(ctx, x: Tensor, axis: list[int], keepdim: bool, reduce_all: bool) -> Tensor:
    """``all`` over all axes when ``reduce_all``."""
    return _reduce(ctx, x, axis, keepdim, reduce_all, _truth(ctx.xp, ctx.xp.all), "all")


@register_kernel("any", ("CPU", "GPU"), dtypes=ALL_ANY_DTYPES, output_defs=_BOOL_OUT)
def reduce_any_kernel(ctx, x: Tensor, axis: list[int], keepdim: bool) -> Tensor:
    """Whether some element over ``axis`` is non-zero (NaN counts as true)."""
    return _reduce(ctx, x, axis, keepdim, False, _truth(ctx.xp, ctx.xp.any), "any")


@register_kernel("any_raw", ("CPU", "GPU"), dtypes=ALL_ANY_DTYPES, output_defs=_BOOL_OUT)
def reduce_any_raw(ctx, x: Tensor, axis: list[int], keepdim: bool, reduce_all: bool) -> Tensor:
    """``any`` over all axes when ``reduce_all``."""
    return _reduce(ctx, x, axis, keepdim, reduce_all, _truth(ctx.xp, ctx.xp.any), "any")


__all__ += ["reduce_all_kernel", "reduce_all_raw", "reduce_any_kernel", "reduce_any_raw",
            "reduce_max", "reduce_max_raw", "reduce_min", "reduce_min_raw", "reduce_prod",
            "reduce_prod_infer"]



@register_kernel("p_norm", ("CPU", "GPU"), dtypes=["float32", "float64"])
def p_norm(ctx, x: Tensor, porder: float, axis: int, epsilon: float, keepdim: bool,
           asvector: bool) -> Tensor:
    """The p-norm over ``axis`` (over every element with ``asvector``), in x's dtype: p = 0
    counts non-zeros, +-inf is the max / min of |x|, else (sum |x|^p)^(1/p).  ``epsilon``
    only serves the gradient."""
    xp = ctx.xp
    t = x.dtype.type
    axes = tuple(range(x.ndim)) if asvector else ((axis % x.ndim,) if x.ndim else ())
    with quiet(xp):
        ax = xp.abs(x)
        if porder == 0:
            out = xp.sum((x != 0).astype(x.dtype), axis=axes, keepdims=keepdim)
        elif porder == math.inf:  # NaN skipped unless all are (checked with the wheel)
            out = xp.fmax.reduce(ax, axis=axes, keepdims=keepdim) if ax.size else \
                xp.max(ax, axis=axes, keepdims=keepdim)
        elif porder == -math.inf:
            out = xp.fmin.reduce(ax, axis=axes, keepdims=keepdim) if ax.size else \
                xp.min(ax, axis=axes, keepdims=keepdim)
        else:
            total = xp.sum(ax ** t(porder), axis=axes, keepdims=keepdim)
            # Paddle raises to 1.0f / porder: the reciprocal is rounded to float first
            out = total ** t(float(np.float32(1.0) / np.float32(porder)))
        return as_array(xp, out)


__all__ += ["p_norm"]
