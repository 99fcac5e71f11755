"""Reduction kernels and their grads: mean, sum, max, min, amax, amin, prod, all, any (Paddle's
paddle/phi/kernels/cpu/reduce_*_kernel.cc, cpu/reduce.h, funcs/reduce_functor.h)."""

from __future__ import annotations



from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import reduce_axes, sum_out_dtype
from phi.kernels.funcs import (INTEGERS, as_array, cast_array, prod, quiet,
                               trunc_divide)
from phi.kernels.funcs.reduce import broadcast_back, half_sum, mean_broadcast_back, reduced_axes

__all__ = ["amax", "amax_raw", "amin", "amin_raw", "reduce_all_kernel", "reduce_all_raw",
           "reduce_any_kernel", "reduce_any_raw", "reduce_max", "reduce_max_raw", "reduce_mean",
           "reduce_mean_raw", "reduce_min", "reduce_min_raw", "reduce_prod", "reduce_prod_infer",
           "reduce_sum", "reduce_sum_raw"]


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
        return half_sum(ctx, x, axes, keepdim, out_dtype)
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


@register_kernel("mean_raw", ("CPU", "GPU"), dtypes=MEAN_DTYPES)
def reduce_mean_raw(ctx, x: Tensor, axis: IntArray, keepdim: bool, reduce_all: bool) -> Tensor:
    """Kernel ``mean_raw`` (legacy reduce_mean with reduce_all): ``mean`` over all axes when
    ``reduce_all``."""
    if reduce_all:
        axis = IntArray(())
    return reduce_mean(ctx, x, axis, keepdim)


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


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
MINMAX_DTYPES = ["float32", "float64", "int32", "int64"]


# -- amax / amin: the kernels of max / min (they differ only in their gradients) ------------------

def _amax_amin(ctx, x, axis, keepdim: bool, reduce_all: bool, reducer, name: str):
    rank = x.ndim
    named = [a + rank if a < 0 else a for a in axis] if rank else []
    if len(set(named)) != len(named) and not reduce_all:
        # Paddle's Eigen reduction gets one dim too few and refuses it
        raise InvalidArgument(f"reduce_{name}: the axes {list(axis)} name an axis twice.")
    return _reduce(ctx, x, axis, keepdim, reduce_all, _nan_skipping(ctx.xp, reducer), name)


@register_kernel("amax", ("CPU", "GPU"), dtypes=MINMAX_DTYPES)
def amax(ctx, x: Tensor, axis: list[int], keepdim: bool) -> Tensor:
    """The maximum over ``axis`` (all axes when empty); NaN is skipped unless all are NaN."""
    return _amax_amin(ctx, x, axis, keepdim, False, ctx.xp.max, "amax")


@register_kernel("amax_raw", ("CPU", "GPU"), dtypes=MINMAX_DTYPES)
def amax_raw(ctx, x: Tensor, axis: list[int], keepdim: bool, reduce_all: bool) -> Tensor:
    """``amax`` over all axes when ``reduce_all``."""
    return _amax_amin(ctx, x, axis, keepdim, reduce_all, ctx.xp.max, "amax")


@register_kernel("amin", ("CPU", "GPU"), dtypes=MINMAX_DTYPES)
def amin(ctx, x: Tensor, axis: list[int], keepdim: bool) -> Tensor:
    """The minimum over ``axis`` (all axes when empty); NaN is skipped unless all are NaN."""
    return _amax_amin(ctx, x, axis, keepdim, False, ctx.xp.min, "amin")


@register_kernel("amin_raw", ("CPU", "GPU"), dtypes=MINMAX_DTYPES)
def amin_raw(ctx, x: Tensor, axis: list[int], keepdim: bool, reduce_all: bool) -> Tensor:
    """``amin`` over all axes when ``reduce_all``."""
    return _amax_amin(ctx, x, axis, keepdim, reduce_all, ctx.xp.min, "amin")


_F_I = ["float32", "float64", "int32", "int64"]


# -- sum, mean ---------------------------------------------------------------------------------

@register_kernel("sum_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "float16",
                                                     "bfloat16", "bool", "int16", "int32",
                                                     "int64", "complex64", "complex128"])
def sum_grad(ctx, x: Tensor, out_grad: Tensor, dim: IntArray, keep_dim: bool,
             reduce_all: bool) -> Tensor:
    """dout broadcast back over the reduced axes."""
    xp = ctx.xp
    axes = reduced_axes(x, dim, reduce_all)
    return xp.array(broadcast_back(xp, out_grad, x, axes), dtype=out_grad.dtype)


@register_kernel("mean_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "bool", "complex64",
                                                      "complex128"])
def mean_grad(ctx, x: Tensor, out_grad: Tensor, dim: IntArray, keep_dim: bool,
              reduce_all: bool) -> Tensor:
    """dout / (number of reduced elements), broadcast back."""
    return mean_broadcast_back(ctx, x, out_grad, reduced_axes(x, dim, reduce_all))


# -- max, min, amax, amin, prod ----------------------------------------------------------------

def _extreme_grad(ctx, x, out, out_grad, dim, reduce_all, share: bool):
    # max_grad / min_grad: every element equal to the result gets the whole dout;
    # amax_grad / amin_grad: the ties share it equally
    xp = ctx.xp
    axes = reduced_axes(x, dim, reduce_all)
    hit = (x == broadcast_back(xp, out, x, axes)).astype(x.dtype)
    g = broadcast_back(xp, out_grad, x, axes)
    with quiet(xp):
        if share:
            count = xp.sum(hit, axis=axes, keepdims=True, dtype=hit.dtype)
            if ctx.data_type(x) in INTEGERS:
                return as_array(xp, trunc_divide(xp, g * hit, xp.where(count == 0, 1, count)))
            return as_array(xp, g * hit / count)
        return as_array(xp, g * hit)


def _register_extreme(name: str, share: bool) -> None:
    def kernel(ctx, x: Tensor, out: Tensor, out_grad: Tensor, dim: IntArray, keep_dim: bool,
               reduce_all: bool) -> Tensor:
        return _extreme_grad(ctx, x, out, out_grad, dim, reduce_all, share)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = ("dout shared equally by the elements equal to the result." if share else
                      "dout for every element equal to the result, 0 elsewhere.")
    register_kernel(name, ("CPU", "GPU"), dtypes=_F_I)(kernel)


for _name, _share in (("max_grad", False), ("min_grad", False), ("amax_grad", True),
                      ("amin_grad", True)):
    _register_extreme(_name, _share)


@register_kernel("prod_grad", ("CPU", "GPU"), dtypes=_F_I)
def prod_grad(ctx, x: Tensor, out: Tensor, out_grad: Tensor, dim: IntArray, keep_dim: bool,
              reduce_all: bool) -> Tensor:
    """dout * out * x.inverse() (Paddle's ProdGradFunctor: a zero in x gives inf / NaN there;
    on integers Eigen's inverse is 1 / x in integer division)."""
    xp = ctx.xp
    axes = reduced_axes(x, dim, reduce_all)
    g, o = broadcast_back(xp, out_grad, x, axes), broadcast_back(xp, out, x, axes)
    with quiet(xp):
        if ctx.data_type(x) in INTEGERS:
            inv = trunc_divide(xp, xp.ones_like(x), xp.where(x == 0, 1, x))
            return as_array(xp, g * o * inv)
        return as_array(xp, g * o * (x.dtype.type(1) / x))
