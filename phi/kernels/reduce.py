"""Reduction kernels: mean, sum (Paddle's paddle/phi/kernels/cpu/reduce_{mean,sum}_kernel.cc,
cpu/reduce.h, funcs/reduce_functor.h)."""

from __future__ import annotations

import math

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.unary import reduce_axes, reduce_out_dims, sum_out_dtype
from phi.kernels.funcs import (
    COMPLEX,
    INTEGERS,
    as_array,
    bf16_op,
    cast_array,
    prod,
    quiet,
    trunc_divide,
)

__all__ = ["reduce_mean", "reduce_sum"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
MEAN_DTYPES = ["float32", "float64", "bool", "int32", "int64", "complex64", "complex128"]
SUM_DTYPES = ["bool", "float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16",
              "int32", "int64", "complex64", "complex128"]


@register_kernel("mean", ("CPU", "GPU"), dtypes=MEAN_DTYPES)
def reduce_mean(ctx, x: Tensor, axis: IntArray, keepdim: bool) -> Tensor:
    """Kernel ``mean``: the mean over ``axis`` (all axes when empty), in x's dtype."""
    xp = ctx.xp
    dtype = ctx.data_type(x)
    axes = reduce_axes(x.shape, axis.data)
    count = prod(x.shape[a] for a in axes)
    # 2.6.2 reduces with Eigen's MeanReducer in T (the cast to float for integer inputs came
    # later): it accumulates in T and divides by T(count).
    if dtype is DataType.BOOL:
        # bool accumulation is logical or, and or / true is the or: the mean of bools is any()
        return as_array(xp, xp.any(x, axis=axes, keepdims=keepdim))
    if dtype in INTEGERS:
        # the sum wraps in T, then C++ integer division truncates toward zero; an empty
        # reduction divides by zero in Paddle (a crash): 0 here, as later Paddle versions fill
        total = as_array(xp, xp.sum(x, axis=axes, keepdims=keepdim, dtype=x.dtype))
        if count == 0:
            return xp.zeros_like(total)
        return trunc_divide(xp, total, ctx.asarray(count, dtype))
    if count == 0:  # an empty float reduction is 0 / 0 in Eigen
        nan = complex(math.nan, math.nan) if dtype in COMPLEX else math.nan
        return ctx.full(reduce_out_dims(x.shape, axes, keepdim), nan, dtype)
    with quiet(xp):
        return as_array(xp, xp.mean(x, axis=axes, keepdims=keepdim))


@register_kernel("sum", ("CPU", "GPU"), dtypes=SUM_DTYPES,
                 output_defs={0: {"dtype": DataType.UNDEFINED}})
def reduce_sum(ctx, x: Tensor, axis: IntArray, dtype: DataType, keepdim: bool) -> Tensor:
    """Kernel ``sum``: the sum over ``axis``; bool/int32 sum to int64 unless ``dtype`` is given."""
    xp = ctx.xp
    out_dtype = sum_out_dtype(ctx.data_type(x), dtype)
    axes = reduce_axes(x.shape, axis.data)
    # Paddle casts x to the output dtype first (CastKernel), then sums in that type: int8
    # sums wrap in int8, a bool sum with dtype=bool is a logical or
    if ctx.data_type(x) is not out_dtype:
        x = cast_array(ctx, x, out_dtype)
    if out_dtype is DataType.BFLOAT16:
        # accumulated in float32 and truncated once; Paddle truncates after every addition
        return bf16_op(ctx, lambda a: xp.sum(a, axis=axes, keepdims=keepdim), x)
    with quiet(xp):
        return as_array(xp, xp.sum(x, axis=axes, keepdims=keepdim,
                                   dtype=ctx.xp_dtype(out_dtype)))


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
