"""Reductions and norms of helper `reduce`: amax / amin, logsumexp, frobenius_norm, norm,
squared_l2_norm, mean_all, nanmedian, mode, kthvalue, renorm, spectral_norm (Paddle's
paddle/phi/kernels/cpu/*_kernel.cc of the same names; funcs/mode.h)."""

from __future__ import annotations

import math

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.reduce_ext import check_kth, median_out_dims
from phi.infermeta.unary import reduce_axes
from phi.kernels.funcs import stl_sort
from phi.kernels.funcs import (COMPLEX, INTEGERS, as_array, half_op, owned, prod, quiet, to_half,
                               trunc_divide)
from phi.kernels.reduce import _nan_skipping, _reduce, half_row_sums
from phi.kernels.search import _before, _stable_order, _stl_rows

__all__ = ["amax", "amax_raw", "amin", "amin_raw", "frobenius_norm", "kthvalue", "logsumexp",
           "mean_all", "mode", "nanmedian", "norm", "renorm", "spectral_norm", "squared_l2_norm"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
MINMAX_DTYPES = ["float32", "float64", "int32", "int64"]
FLOAT_DTYPES = ["float32", "float64"]
MEAN_ALL_DTYPES = ["float32", "float64", "bfloat16", "complex64", "complex128"]
_INDICES_OUT = {1: {"dtype": DataType.INT64}}


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


# -- logsumexp / frobenius_norm / norm / squared_l2_norm / mean_all --------------------------------

@register_kernel("logsumexp", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def logsumexp(ctx, x: Tensor, axis: list[int], keepdim: bool, reduce_all: bool) -> Tensor:
    """log(sum(exp(x - max))) + max over ``axis``: a row holding +-inf or NaN gives NaN, as
    Paddle's (x - max) does (inf - inf)."""
    xp = ctx.xp
    axes = reduce_axes(x.shape, axis, reduce_all)
    if 0 in x.shape:
        raise InvalidArgument("logsumexp: The dims of Input(X) should be greater than 0, but "
                              f"received {list(x.shape)}.")
    with quiet(xp):
        top = xp.max(x, axis=axes, keepdims=True)
        out = xp.log(xp.sum(xp.exp(x - top), axis=axes, keepdims=True)) + top
    return as_array(xp, out if keepdim else xp.squeeze(out, axis=axes))


@register_kernel("frobenius_norm", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def frobenius_norm(ctx, x: Tensor, axis: IntArray, keepdim: bool, reduce_all: bool) -> Tensor:
    """sqrt(sum(x * x)) over ``axis``."""
    xp = ctx.xp
    axes = reduce_axes(x.shape, axis.data, reduce_all)
    with quiet(xp):
        return as_array(xp, xp.sqrt(xp.sum(x * x, axis=axes, keepdims=keepdim)))


@register_kernel("norm", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def norm(ctx, x: Tensor, axis: int, epsilon: float, is_test: bool) -> tuple[Tensor, Tensor]:
    """(x / norm, norm) with norm = sqrt(sum(x * x) + epsilon) along ``axis``."""
    xp = ctx.xp
    axis = axis + x.ndim if axis < 0 else axis
    with quiet(xp):
        eps = ctx.asarray(epsilon, ctx.data_type(x))
        n = xp.sqrt(xp.sum(x * x, axis=axis, keepdims=True) + eps)
        return as_array(xp, x / n), as_array(xp, n)


@register_kernel("squared_l2_norm", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def squared_l2_norm(ctx, x: Tensor) -> Tensor:
    """sum(x * x) over every element, shaped [1] (0 for an empty x)."""
    xp = ctx.xp
    with quiet(xp):
        return xp.reshape(xp.sum(x * x), (1,))


@register_kernel("mean_all", ("CPU", "GPU"), dtypes=MEAN_ALL_DTYPES)
def mean_all(ctx, x: Tensor) -> Tensor:
    """The mean of every element, 0-D (NaN for an empty x: Eigen's 0 / 0)."""
    xp = ctx.xp
    dtype = ctx.data_type(x)
    n = int(x.size)
    if dtype is DataType.BFLOAT16:
        # Eigen's MeanReducer in bfloat16 (stateful: no tree): a truncating sum in order, then
        # one truncating division by T(count), the count truncated too (2051 -> 2048:
        # Paddle-made cases hb_mean_*bf16)
        flat = ctx.astype(xp.reshape(x, (1, -1)), DataType.FLOAT32)
        total = to_half(ctx, half_row_sums(ctx, flat, dtype)[0], dtype)
        return half_op(ctx, lambda s, c: s / c, total, to_half(ctx, xp.asarray(n), dtype))
    with quiet(xp):
        # Eigen reduces phi::dtype::complex (no packet math) one element after another: the
        # sequential sum (numpy's pairwise sum differs in the last bit, and complex cases are
        # compared exactly); floats are vectorized in Paddle, any order is within tolerance
        flat = xp.reshape(x, (-1,))
        total = xp.cumsum(flat)[-1] if dtype in COMPLEX and n else xp.sum(flat)
        if dtype in COMPLEX:
            # std::complex<T>(total) / std::complex<T>(n): libgcc's __divsc3 / __divdc3 with
            # a zero imaginary part scale n by 2**-ilogb(n), then (part * c) / (c * c)
            t = x.real.dtype.type
            e = math.frexp(float(n))[1] - 1
            c = t(math.ldexp(float(n), -e))
            out = xp.empty((), dtype=x.dtype)
            out.real = xp.ldexp((xp.real(total) * c) / (c * c), -e)
            out.imag = xp.ldexp((xp.imag(total) * c) / (c * c), -e)
            return out
        return as_array(xp, total / ctx.asarray(n, dtype))


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
    comp = _before(False)
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


@register_kernel("kthvalue", ("CPU", "GPU"), dtypes=MINMAX_DTYPES, output_defs=_INDICES_OUT)
def kthvalue(ctx, x: Tensor, k: int, axis: int, keepdim: bool) -> tuple[Tensor, Tensor]:
    """(k-th smallest value, its index) along ``axis`` (NaN the largest); among equal values
    the index libstdc++'s nth_element / partial_sort leave at k - 1, as Paddle's kernel."""
    xp = ctx.xp
    check_kth(x.shape, k, axis)
    if x.ndim == 0:
        return owned(xp, x), xp.zeros((), dtype=xp.int64)
    axis = axis + x.ndim if axis < 0 else axis
    order = _stable_order(xp, x, axis, False)
    # sorted=True only sorts the slots before k - 1 (after nth_element), never slot k - 1
    order = _stl_rows(ctx, x, order, axis, False, k, True)
    idx = xp.take(order, [k - 1], axis=axis)
    out = xp.take_along_axis(x, idx, axis=axis)
    if not keepdim:
        out, idx = xp.squeeze(out, axis=axis), xp.squeeze(idx, axis=axis)
    return as_array(xp, out), ctx.astype(idx, DataType.INT64)


# -- renorm / spectral_norm ------------------------------------------------------------------------

@register_kernel("renorm", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def renorm(ctx, x: Tensor, p: float, axis: int, max_norm: float) -> Tensor:
    """Each slice along ``axis`` whose p-norm exceeds ``max_norm`` scaled by max_norm / norm
    (no epsilon: checked on float64 against the wheel)."""
    xp = ctx.xp
    if not 0 <= axis < x.ndim:
        # Paddle 2.6.2 does not normalize a negative axis and fails (std::bad_alloc)
        raise InvalidArgument(f"renorm: attribute axis must be in [0, {x.ndim}) for an input of "
                              f"rank {x.ndim}, but received {axis}.")
    t = x.dtype.type
    rest = tuple(i for i in range(x.ndim) if i != axis)
    with quiet(xp):
        total = xp.sum(xp.abs(x) ** t(p), axis=rest, keepdims=True)
        n = total ** t(1.0 / p)
        scale = xp.where(n > t(max_norm), t(max_norm) / n, t(1))
        return as_array(xp, x * scale)


def spectral_power_iteration(xp, weight, u, v, dim: int, power_iters: int, eps: float):
    """spectral_norm's power iterations (Paddle's CalcMatrixSigmaAndNormWeight): weight with
    ``dim`` first flattened to 2-D W, U and V iterated ``power_iters`` times, each step
    normalized by norm + eps in the weight's dtype; returns (perm, W, u, v, sigma)."""
    t = weight.dtype.type
    perm = (dim, *[i for i in range(weight.ndim) if i != dim])
    moved = xp.transpose(weight, perm)
    w = xp.reshape(moved, (moved.shape[0], -1))
    uu, vv = xp.reshape(u, (-1,)), xp.reshape(v, (-1,))
    with quiet(xp):
        for _ in range(power_iters):
            vv = w.T @ uu
            vv = vv / (xp.sqrt(xp.sum(vv * vv)) + t(eps))
            uu = w @ vv
            uu = uu / (xp.sqrt(xp.sum(uu * uu)) + t(eps))
        sigma = xp.sum(uu * (w @ vv))
    return perm, w, uu, vv, sigma


@register_kernel("spectral_norm", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def spectral_norm(ctx, weight: Tensor, u: Tensor, v: Tensor, dim: int, power_iters: int,
                  eps: float) -> Tensor:
    """weight / sigma, sigma = u^T W v after ``power_iters`` power iterations from U and V
    (W: weight with ``dim`` first, flattened to 2-D); each step normalizes by norm + eps."""
    xp = ctx.xp
    perm, w, _u, _v, sigma = spectral_power_iteration(xp, weight, u, v, dim, power_iters, eps)
    with quiet(xp):
        out = xp.reshape(w / sigma, xp.transpose(weight, perm).shape)
    return as_array(xp, xp.transpose(out, tuple(int(i) for i in xp.argsort(xp.asarray(perm)))))
