"""Comparison, scan and counting kernels of helper `binary2`: allclose, isclose, equal_all,
cumprod, cummax, cummin, logcumsumexp, searchsorted, bincount, histogram (Paddle's
paddle/phi/kernels/{cpu,impl}/*_kernel*)."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import COMPLEX, FLOATS, as_array, quiet

__all__ = ["allclose", "bincount", "cummax", "cummin", "cumprod", "equal_all", "histogram",
           "isclose", "logcumsumexp", "searchsorted"]

_BOOL_OUT = {0: {"dtype": DataType.BOOL}}
_ANY_OUT = {0: {"dtype": DataType.UNDEFINED}}


def _close(ctx, x, y, rtol, atol, equal_nan: bool):
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


@register_kernel("isclose", ("CPU", "GPU"), dtypes=["float32", "float64", "complex64",
                                                    "complex128"], output_defs=_BOOL_OUT)
def isclose(ctx, x: Tensor, y: Tensor, rtol: Scalar, atol: Scalar, equal_nan: bool) -> Tensor:
    """Element-wise closeness (IscloseFunctor)."""
    return _close(ctx, x, y, rtol, atol, equal_nan)


@register_kernel("allclose", ("CPU", "GPU"), dtypes=["float32", "float64"],
                 output_defs=_BOOL_OUT)
def allclose(ctx, x: Tensor, y: Tensor, rtol: Scalar, atol: Scalar, equal_nan: bool) -> Tensor:
    """All elements close (true for empty tensors), a 0-D bool."""
    return as_array(ctx.xp, ctx.xp.all(_close(ctx, x, y, rtol, atol, equal_nan)))


@register_kernel("equal_all", ("CPU", "GPU"), dtypes=["bool", "int32", "int64", "float32",
                                                      "float64"], output_defs=_BOOL_OUT)
def equal_all(ctx, x: Tensor, y: Tensor) -> Tensor:
    """False when the dims differ, else every element equal (floats within 1e-8, NaN never)."""
    xp = ctx.xp
    if tuple(x.shape) != tuple(y.shape):
        return xp.asarray(False)
    with quiet(xp):
        eq = (x == y) | (xp.abs(x - y) < 1e-8) if ctx.data_type(x) in FLOATS else x == y
    return as_array(xp, xp.all(eq))


def _axis(op: str, axis: int, rank: int) -> int:
    if rank == 0:
        if axis not in (0, -1):
            raise InvalidArgument(f"{op}: axis {axis} is out of range for a 0-D input.")
        return 0
    if not -rank <= axis < rank:
        raise InvalidArgument(f"{op}: axis {axis} is out of range [{-rank}, {rank}).")
    return axis % rank


@register_kernel("cumprod", ("CPU", "GPU"), dtypes=["float32", "float64", "int32", "int64",
                                                    "complex64", "complex128"])
def cumprod(ctx, x: Tensor, dim: int) -> Tensor:
    """Running products along ``dim`` in x's dtype."""
    xp = ctx.xp
    ax = _axis("cumprod", dim, x.ndim)
    if x.ndim == 0:
        return xp.asarray(x, copy=True)
    with quiet(xp):
        return as_array(xp, xp.cumprod(x, axis=ax, dtype=x.dtype))


def _cum_extreme(ctx, x, axis: int, dtype: DataType, op: str, better):
    """Running max / min with the index of the element it came from: a tie or a NaN moves the
    index to the later element; once NaN, the value stays NaN."""
    xp = ctx.xp
    ax = _axis(op, axis, x.ndim)
    if x.ndim == 0:
        return xp.asarray(x, copy=True), ctx.astype(xp.zeros((), xp.int64), dtype)
    xm = xp.moveaxis(x, ax, -1)
    out = xp.empty_like(xm)
    idx = xp.zeros(xm.shape, dtype=xp.int64)
    n = xm.shape[-1]
    if n:
        cur, cur_i = xm[..., 0].copy(), xp.zeros(xm.shape[:-1], dtype=xp.int64)
        floats = ctx.data_type(x) in FLOATS
        for i in range(n):
            v = xm[..., i]
            take = better(v, cur) | (v == cur)
            if floats:
                take = xp.isnan(v) | (~xp.isnan(cur) & take)
            cur = xp.where(take, v, cur)
            cur_i = xp.where(take, i, cur_i)
            out[..., i], idx[..., i] = cur, cur_i
    return (as_array(xp, xp.moveaxis(out, -1, ax)),
            ctx.astype(xp.moveaxis(idx, -1, ax), dtype))


_CUM_DTYPES = ["float32", "float64", "int32", "int64"]
_IDX_OUT = {1: {"dtype": DataType.UNDEFINED}}


@register_kernel("cummax", ("CPU", "GPU"), dtypes=_CUM_DTYPES, output_defs=_IDX_OUT)
def cummax(ctx, x: Tensor, axis: int, dtype: DataType) -> tuple[Tensor, Tensor]:
    """Running maximum along ``axis`` and its indices (of ``dtype``, int32 or int64)."""
    return _cum_extreme(ctx, x, axis, dtype, "cummax", lambda a, b: a > b)


@register_kernel("cummin", ("CPU", "GPU"), dtypes=_CUM_DTYPES, output_defs=_IDX_OUT)
def cummin(ctx, x: Tensor, axis: int, dtype: DataType) -> tuple[Tensor, Tensor]:
    """Running minimum along ``axis`` and its indices (of ``dtype``, int32 or int64)."""
    return _cum_extreme(ctx, x, axis, dtype, "cummin", lambda a, b: a < b)


@register_kernel("logcumsumexp", ("CPU", "GPU"), dtypes=["float32", "float64"])
def logcumsumexp(ctx, x: Tensor, axis: int, flatten: bool, exclusive: bool,
                 reverse: bool) -> Tensor:
    """log(cumsum(exp(x))) along ``axis`` (of the flattened x with ``flatten``); ``exclusive``
    shifts by one; the scan starts from the lowest finite value, so -inf gives that value."""
    xp = ctx.xp
    if flatten:
        x, ax = xp.reshape(x, (-1,)), 0
    elif x.ndim == 0:
        return xp.asarray(x, copy=True)
    else:
        ax = _axis("logcumsumexp", axis, x.ndim)
    if reverse:
        x = xp.flip(x, axis=ax)
    # the scan starts from the lowest finite value: -inf never comes out, lowest does
    low = x.dtype.type(xp.finfo(x.dtype).min)
    with quiet(xp):
        out = xp.logaddexp(xp.logaddexp.accumulate(x, axis=ax), low)
    if exclusive and x.shape[ax] > 0:
        head = [slice(None)] * x.ndim
        head[ax] = slice(0, -1)
        shape = list(x.shape)
        shape[ax] = 1
        out = xp.concatenate([xp.full(tuple(shape), low, dtype=x.dtype), out[tuple(head)]],
                             axis=ax)
    if reverse:
        out = xp.flip(out, axis=ax)
    return as_array(xp, out)


@register_kernel("searchsorted", ("CPU", "GPU"), dtypes=_CUM_DTYPES,
                 input_defs={"values": {"dtype": DataType.ALL_DTYPE}}, output_defs=_ANY_OUT)
def searchsorted(ctx, sorted_sequence: Tensor, values: Tensor, out_int32: bool,
                 right: bool) -> Tensor:
    """Insertion indices of ``values`` in the last dim of ``sorted_sequence`` (1-D: shared by
    all values; else row by row); a NaN value goes after everything."""
    xp = ctx.xp
    side = "right" if right else "left"
    seq = sorted_sequence
    n = seq.shape[-1] if seq.ndim else 1
    if seq.ndim <= 1:
        out = xp.searchsorted(xp.reshape(seq, (-1,)), values, side=side)
    else:
        lead = 1
        for d in seq.shape[:-1]:
            lead *= d
        rows = xp.reshape(seq, (lead, n))
        vals = xp.reshape(values, (lead, values.shape[-1]))
        out = xp.zeros(vals.shape, dtype=xp.int64)
        for i in range(lead):
            out[i] = xp.searchsorted(rows[i], vals[i], side=side)
        out = xp.reshape(out, values.shape)
    if values.dtype.kind == "f":
        out = xp.where(xp.isnan(values), n, out)
    return ctx.astype(xp.asarray(out), DataType.INT32 if out_int32 else DataType.INT64)


@register_kernel("bincount", ("CPU", "GPU"), dtypes=_CUM_DTYPES,
                 input_defs={"x": {"dtype": DataType.ALL_DTYPE}}, output_defs=_ANY_OUT)
def bincount(ctx, x: Tensor, weights: Tensor | None, minlength: Scalar) -> Tensor:
    """Counts (int64) or summed ``weights`` (their dtype) per value of the non-negative x;
    length max(max(x) + 1, minlength)."""
    xp = ctx.xp
    if ctx.data_type(x) not in (DataType.INT32, DataType.INT64):
        raise InvalidArgument(f"bincount: Input(X) must be int32 or int64, but received "
                              f"{ctx.data_type(x)}.")
    ml = int(Scalar(minlength).value)
    if ml < 0:
        raise InvalidArgument(f"bincount: The minlength should be greater than or equal to 0, "
                              f"but the value received is {ml}.")
    flat = xp.reshape(x, (-1,))
    if flat.size and int(flat.min()) < 0:
        raise InvalidArgument(f"bincount: The elements in input tensor must be non-negative "
                              f"ints, but received {int(flat.min())}.")
    length = max(int(flat.max()) + 1 if flat.size else 0, ml)
    if weights is None:
        return xp.bincount(flat.astype(xp.int64), minlength=length).astype(xp.int64)[:length]
    w = xp.reshape(weights, (-1,))
    out = xp.zeros(length, dtype=weights.dtype)
    with quiet(xp):
        xp.add.at(out, flat.astype(xp.int64), w)
    return out


@register_kernel("histogram", ("CPU", "GPU"), dtypes=_CUM_DTYPES,
                 output_defs={0: {"dtype": DataType.INT64}})
def histogram(ctx, x: Tensor, bins: int, min: int, max: int) -> Tensor:
    """Counts (int64) of x in ``bins`` equal bins over [min, max] (both 0: x's own range; an
    empty range widens by 1 on each side); values outside are ignored, max goes in the last
    bin; the bin index is computed in x's type as Paddle does."""
    xp = ctx.xp
    if bins <= 0:
        raise InvalidArgument(f"histogram: The bins should be greater than 0, but received "
                              f"{bins}.")
    if min > max:
        raise InvalidArgument(f"histogram: max must be larger or equal to min, but received "
                              f"max = {max}, min = {min}.")
    flat = xp.reshape(x, (-1,))
    t = x.dtype.type
    lo, hi = t(min), t(max)
    if lo == hi and flat.size:
        lo, hi = flat.min(), flat.max()
    if lo == hi:
        lo, hi = lo - t(1), hi + t(1)
    if x.dtype.kind == "f" and not (xp.isfinite(lo) and xp.isfinite(hi)):
        raise InvalidArgument(f"histogram: range of min, max is not finite: [{lo}, {hi}].")
    keep = flat[(flat >= lo) & (flat <= hi)]
    with quiet(xp):
        if x.dtype.kind == "f":
            b = ((keep - lo) * t(bins) / (hi - lo)).astype(xp.int64)
        else:
            b = (keep - lo) * bins // (hi - lo)
    b = xp.minimum(b.astype(xp.int64), bins - 1)
    return xp.bincount(b, minlength=bins).astype(xp.int64)
