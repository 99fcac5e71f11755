"""The ``cummax``, ``cummax_grad``, ``cummin``, ``cummin_grad``, ``cumprod``, ``cumprod_grad``,
``cumsum``, ``cumsum_grad``, ``logcumsumexp`` and ``logcumsumexp_grad`` kernels."""

from __future__ import annotations



from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import (COMPLEX, FLOATS, as_array, quiet)

__all__ = ["cummax", "cummin", "cumprod", "cumsum", "logcumsumexp"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
CUMSUM_DTYPES = ["float32", "float64", "int16", "int32", "int64"]


@register_kernel("cumsum", ("CPU", "GPU"), dtypes=CUMSUM_DTYPES)
def cumsum(ctx, x: Tensor, axis: Scalar, flatten: bool, exclusive: bool,
           reverse: bool) -> Tensor:
    """Running sums in x's dtype along ``axis`` (of the flattened x with ``flatten``, giving
    [numel]); ``exclusive`` starts from 0 without the element itself, ``reverse`` from the end."""
    xp = ctx.xp
    if flatten:
        x = xp.reshape(x, (-1,))
        ax = 0
    elif x.ndim == 0:
        return xp.asarray(x, copy=True)
    else:
        ax = int(axis.value if isinstance(axis, Scalar) else axis) % x.ndim
    if reverse:
        x = xp.flip(x, axis=ax)
    with quiet(xp):
        out = xp.cumsum(x, axis=ax, dtype=x.dtype)
    if exclusive and x.shape[ax] > 0:
        # the sum of the elements before: shift by one and start from 0
        head = [slice(None)] * x.ndim
        head[ax] = slice(0, -1)
        zero_shape = list(x.shape)
        zero_shape[ax] = 1
        out = xp.concatenate([xp.zeros(tuple(zero_shape), dtype=x.dtype), out[tuple(head)]],
                             axis=ax)
    if reverse:
        out = xp.flip(out, axis=ax)
    return as_array(xp, out)


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


_F = ["float32", "float64"]
_F_I = ["float32", "float64", "int32", "int64"]


# -- scans -------------------------------------------------------------------------------------

def _scan_axis(x, axis, flatten: bool):
    if flatten or x.ndim == 0:
        return None
    return int(axis.value if isinstance(axis, Scalar) else axis) % x.ndim


@register_kernel("cumsum_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "int16", "int32",
                                                        "int64"])
def cumsum_grad(ctx, x: Tensor, out_grad: Tensor, axis: Scalar, flatten: bool, exclusive: bool,
                reverse: bool) -> Tensor:
    """cumsum of dout in the opposite direction (exclusive stays exclusive), x's dims."""
    xp = ctx.xp
    ax = _scan_axis(x, axis, flatten)
    g = xp.reshape(out_grad, (-1,)) if ax is None else out_grad
    a = 0 if ax is None else ax
    if not reverse:
        g = xp.flip(g, a)
    with quiet(xp):
        c = xp.cumsum(g, axis=a, dtype=g.dtype)
        if exclusive:
            c = c - g
    if not reverse:
        c = xp.flip(c, a)
    return as_array(xp, xp.reshape(c, x.shape))


@register_kernel("cumprod_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "int32", "int64",
                                                         "complex64", "complex128"])
def cumprod_grad(ctx, x: Tensor, out: Tensor, out_grad: Tensor, dim: int) -> Tensor:
    """dx_i = sum_{j >= i} dout_j * prod_{k <= j, k != i} x_k (conjugated for complex), exact
    with zeros in x."""
    xp = ctx.xp
    if x.ndim == 0:
        return xp.array(out_grad, copy=True)
    ax = dim % x.ndim
    xm = xp.moveaxis(x, ax, -1)
    gm = xp.moveaxis(out_grad, ax, -1)
    if ctx.data_type(x) in COMPLEX:
        xm = xp.conj(xm)
    n = xm.shape[-1]
    dx = xp.empty_like(xm)
    with quiet(xp):
        for i in range(n):
            without = xp.array(xm, copy=True)
            without[..., i] = 1
            part = xp.cumprod(without[..., i:], axis=-1) * xp.cumprod(
                without[..., :i], axis=-1)[..., -1:] if i else xp.cumprod(without, axis=-1)
            dx[..., i] = xp.sum(part * gm[..., i:], axis=-1, dtype=xm.dtype)
    return as_array(xp, xp.moveaxis(dx, -1, ax))


def _cum_extreme_grad(ctx, x, indices, out_grad, axis):
    # every output gradient goes to the element its index names (scatter-add along axis)
    xp = ctx.xp
    dx = xp.zeros(x.shape, dtype=out_grad.dtype)
    if x.ndim == 0:
        return xp.array(out_grad, copy=True)
    ax = axis % x.ndim
    idx = indices.astype(xp.int64)
    grid = list(xp.indices(idx.shape, sparse=True))
    grid[ax] = idx
    xp.add.at(dx, tuple(grid), out_grad)
    return dx


@register_kernel("cummax_grad", ("CPU", "GPU"), dtypes=_F_I,
                 input_defs={"indices": {"dtype": DataType.ALL_DTYPE}})
def cummax_grad(ctx, x: Tensor, indices: Tensor, out_grad: Tensor, axis: int,
                dtype: DataType) -> Tensor:
    """dout added at the index of each running maximum."""
    return _cum_extreme_grad(ctx, x, indices, out_grad, axis)


@register_kernel("cummin_grad", ("CPU", "GPU"), dtypes=_F_I,
                 input_defs={"indices": {"dtype": DataType.ALL_DTYPE}})
def cummin_grad(ctx, x: Tensor, indices: Tensor, out_grad: Tensor, axis: int,
                dtype: DataType) -> Tensor:
    """dout added at the index of each running minimum."""
    return _cum_extreme_grad(ctx, x, indices, out_grad, axis)


@register_kernel("logcumsumexp_grad", ("CPU", "GPU"), dtypes=_F)
def logcumsumexp_grad(ctx, x: Tensor, out: Tensor, out_grad: Tensor, axis: int, flatten: bool,
                      exclusive: bool, reverse: bool) -> Tensor:
    """dx_i = sum over the outputs j that include x_i of dout_j * exp(x_i - out_j)."""
    xp = ctx.xp
    ax = _scan_axis(x, axis, flatten)
    if ax is None:
        xs, os_, gs = (xp.reshape(a, (-1,)) for a in (x, out, out_grad))
        a = 0
    else:
        xs, os_, gs, a = x, out, out_grad, ax
    xm, om, gm = (xp.moveaxis(v, a, -1) for v in (xs, os_, gs))
    n = xm.shape[-1]
    i = xp.arange(n)[:, None]
    j = xp.arange(n)[None, :]
    take = (j >= i) if not reverse else (j <= i)
    if exclusive:
        take = take & (j != i)
    with quiet(xp):
        w = xp.exp(xm[..., :, None] - om[..., None, :])  # [..., i, j]
        dx = xp.sum(xp.where(take, w * gm[..., None, :], 0), axis=-1, dtype=xm.dtype)
    return as_array(xp, xp.reshape(xp.moveaxis(dx, -1, a), x.shape))
