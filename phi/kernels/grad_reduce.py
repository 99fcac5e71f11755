"""Grad kernels of the reductions, norms and scans (Paddle's paddle/phi/kernels/cpu/
reduce_*_grad_kernel.cc, impl/*norm_grad_kernel_impl.h, cpu/cum*_grad_kernel.cc, ...).

A reduction's output gradient is broadcast back over the reduced axes (kept as size-1 dims
first when the forward dropped them).
"""

from __future__ import annotations

import math

import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.scalar import Scalar
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import reduce_axes
from phi.kernels.funcs import (
    COMPLEX,
    INTEGERS,
    as_array,
    cast_array,
    prod,
    quiet,
    to_half,
    trunc_divide,
)
from phi.kernels.grad_elementwise import reduce_to

__all__: list[str] = []

_F = ["float32", "float64"]
_F_I = ["float32", "float64", "int32", "int64"]
_HALF = (DataType.FLOAT16, DataType.BFLOAT16)


def _dims(dims) -> list[int]:
    data = dims.data if isinstance(dims, IntArray) else dims
    return [int(d) for d in (data or ())]


def _axes(x, dims, reduce_all: bool) -> tuple[int, ...]:
    """The reduced axes as Paddle's recompute_reduce_all: every axis for reduce_all, an empty
    dim list or one naming every dim."""
    return reduce_axes(x.shape, _dims(dims), bool(reduce_all))


def _keep(xp, a, x, axes):
    """``a`` (an output or its gradient) with the reduced axes as size-1 dims of x's rank."""
    if a is None:
        return None
    shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    return xp.reshape(a, shape)


def _back(xp, a, x, axes):
    """``a`` broadcast back to x's dims."""
    return xp.broadcast_to(_keep(xp, a, x, axes), x.shape)


# -- sum, mean ---------------------------------------------------------------------------------

@register_kernel("sum_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "float16",
                                                     "bfloat16", "bool", "int16", "int32",
                                                     "int64", "complex64", "complex128"])
def sum_grad(ctx, x: Tensor, out_grad: Tensor, dim: IntArray, keep_dim: bool,
             reduce_all: bool) -> Tensor:
    """dout broadcast back over the reduced axes."""
    xp = ctx.xp
    axes = _axes(x, dim, reduce_all)
    return xp.array(_back(xp, out_grad, x, axes), dtype=out_grad.dtype)


def _mean_back(ctx, x, out_grad, axes):
    xp = ctx.xp
    count = prod(x.shape[i] for i in axes)
    dtype = ctx.data_type(out_grad)
    g = _back(xp, out_grad, x, axes)
    with quiet(xp):
        if dtype in _HALF:
            return to_half(ctx, ctx.astype(g, DataType.FLOAT32) / xp.float32(count), dtype)
        if dtype is DataType.BOOL or dtype in INTEGERS:
            return cast_array(ctx, g.astype(xp.float64) / count, dtype)
        return xp.array(g / g.dtype.type(count), dtype=g.dtype)


@register_kernel("mean_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "bool", "complex64",
                                                      "complex128"])
def mean_grad(ctx, x: Tensor, out_grad: Tensor, dim: IntArray, keep_dim: bool,
              reduce_all: bool) -> Tensor:
    """dout / (number of reduced elements), broadcast back."""
    return _mean_back(ctx, x, out_grad, _axes(x, dim, reduce_all))


@register_kernel("mean_all_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "bfloat16",
                                                          "complex64", "complex128"])
def mean_all_grad(ctx, x: Tensor, out_grad: Tensor) -> Tensor:
    """dout / numel(x) for every element."""
    return _mean_back(ctx, x, out_grad, tuple(range(x.ndim)))


# -- max, min, amax, amin, prod ----------------------------------------------------------------

def _extreme_grad(ctx, x, out, out_grad, dim, reduce_all, share: bool):
    # max_grad / min_grad: every element equal to the result gets the whole dout;
    # amax_grad / amin_grad: the ties share it equally
    xp = ctx.xp
    axes = _axes(x, dim, reduce_all)
    hit = (x == _back(xp, out, x, axes)).astype(x.dtype)
    g = _back(xp, out_grad, x, axes)
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
    axes = _axes(x, dim, reduce_all)
    g, o = _back(xp, out_grad, x, axes), _back(xp, out, x, axes)
    with quiet(xp):
        if ctx.data_type(x) in INTEGERS:
            inv = trunc_divide(xp, xp.ones_like(x), xp.where(x == 0, 1, x))
            return as_array(xp, g * o * inv)
        return as_array(xp, g * o * (x.dtype.type(1) / x))


# -- norms -------------------------------------------------------------------------------------

@register_kernel("frobenius_norm_grad", ("CPU", "GPU"), dtypes=_F)
def frobenius_norm_grad(ctx, x: Tensor, out: Tensor, out_grad: Tensor, dim: IntArray,
                        keep_dim: bool, reduce_all: bool) -> Tensor:
    """x / (out + 1e-12f) * dout (the epsilon keeps an all-zero x's gradient 0)."""
    xp = ctx.xp
    axes = _axes(x, dim, reduce_all)
    eps = x.dtype.type(np.float32(1e-12))
    with quiet(xp):
        return as_array(xp, x / (_back(xp, out, x, axes) + eps) * _back(xp, out_grad, x, axes))


@register_kernel("p_norm_grad", ("CPU", "GPU"), dtypes=_F)
def p_norm_grad(ctx, x: Tensor, out: Tensor, out_grad: Tensor, porder: float, axis: int,
                epsilon: float, keepdim: bool, asvector: bool) -> Tensor:
    """p 0: zeros; +-inf: dout * sign(x) where |x| equals the norm; else
    dout * sign(x) * |x|^(p-1) / (norm^(p-1) + epsilon)."""
    xp = ctx.xp
    t = x.dtype.type
    axes = tuple(range(x.ndim)) if asvector else ((axis % x.ndim,) if x.ndim else ())
    g, n = _back(xp, out_grad, x, axes), _back(xp, out, x, axes)
    with quiet(xp):
        if porder == 0:
            return xp.zeros_like(x)
        if math.isinf(porder):
            return as_array(xp, g * xp.sign(x) * (xp.abs(x) == n).astype(x.dtype))
        p1 = t(porder - 1.0)
        return as_array(xp, xp.abs(x) ** p1 * xp.sign(x) * g / (n ** p1 + t(epsilon)))


@register_kernel("norm_grad", ("CPU", "GPU"), dtypes=_F)
def norm_grad(ctx, x: Tensor, norm: Tensor, out_grad: Tensor, axis: int, epsilon: float,
              is_test: bool) -> Tensor:
    """Grad of x / norm with norm = sqrt(sum(x^2) + eps) along ``axis``:
    dx = (dout - x * sum(x * dout) / norm^2) / norm."""
    xp = ctx.xp
    ax = axis % x.ndim
    with quiet(xp):
        s = xp.sum(x * out_grad, axis=ax, keepdims=True, dtype=x.dtype)
        n = xp.reshape(norm, s.shape)
        return as_array(xp, (out_grad - x * s / (n * n)) / n)


@register_kernel("squared_l2_norm_grad", ("CPU", "GPU"), dtypes=_F)
def squared_l2_norm_grad(ctx, x: Tensor, out_grad: Tensor) -> Tensor:
    """2 * x * dout (dout holds one value)."""
    xp = ctx.xp
    with quiet(xp):
        return as_array(xp, x.dtype.type(2) * x * xp.reshape(out_grad, ()))


@register_kernel("logsumexp_grad", ("CPU", "GPU"), dtypes=_F)
def logsumexp_grad(ctx, x: Tensor, out: Tensor, out_grad: Tensor, axis: list[int],
                   keepdim: bool, reduce_all: bool) -> Tensor:
    """dout * exp(x - out)."""
    xp = ctx.xp
    axes = _axes(x, axis, reduce_all)
    with quiet(xp):
        return as_array(xp, _back(xp, out_grad, x, axes) * xp.exp(x - _back(xp, out, x, axes)))


@register_kernel("renorm_grad", ("CPU", "GPU"), dtypes=_F)
def renorm_grad(ctx, x: Tensor, out_grad: Tensor, p: float, axis: int,
                max_norm: float) -> Tensor:
    """Paddle's RenormGradFunctor: per slice along ``axis`` with S = sum |x|^p and norm
    S^(1/p) > max_norm, dx = scale * dout + (-max_norm * S^(-1-1/p)) * sum(dout * x) *
    |x|^(p-1) * sign(x), scale = max_norm / (norm + 1e-7); other slices pass dout."""
    xp = ctx.xp
    t = x.dtype.type
    ax = axis % x.ndim
    others = tuple(i for i in range(x.ndim) if i != ax)
    with quiet(xp):
        s = xp.sum(xp.abs(x) ** t(p), axis=others, keepdims=True, dtype=x.dtype)
        norm = s ** t(1.0 / p)
        over = norm > t(max_norm)
        scale = xp.where(over, t(max_norm) / norm, t(1))
        power = xp.where(over, -t(max_norm) * s ** t(-1.0 - 1.0 / p), t(0))
        wd = xp.sum(out_grad * x, axis=others, keepdims=True, dtype=x.dtype)
        dx = scale * out_grad + power * wd * xp.abs(x) ** t(p - 1.0) * xp.sign(x)
    return as_array(xp, dx.astype(x.dtype, copy=False))


@register_kernel("trace_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "float16", "int32",
                                                       "int64", "complex64", "complex128"])
def trace_grad(ctx, x: Tensor, out_grad: Tensor, offset: int, axis1: int, axis2: int) -> Tensor:
    """dout on the ``offset`` diagonal over axis1 / axis2, zeros elsewhere."""
    xp = ctx.xp
    rank = x.ndim
    a1, a2 = sorted((axis1 % rank, axis2 % rank))
    dx = xp.zeros(x.shape, dtype=out_grad.dtype)
    view = xp.moveaxis(dx, (a1, a2), (-2, -1))  # a view: writes reach dx
    n1, n2 = view.shape[-2:]
    i = xp.arange(max(0, -offset), min(n1, n2 - offset)) if n1 and n2 else xp.arange(0)
    if i.size:
        view[..., i, i + offset] = out_grad[..., None]
    return dx


@register_kernel("dist_grad", ("CPU", "GPU"), dtypes=_F)
def dist_grad(ctx, x: Tensor, y: Tensor, out: Tensor, out_grad: Tensor,
              p: float) -> tuple[Tensor, Tensor]:
    """g = d(||x - y||_p)/d(x - y) * dout (p 0: zeros; +-inf: sign where |x - y| equals the
    result; else |z|^(p-1) sign(z) / out^(p-1)), summed back to x's and y's dims (dy = -g)."""
    xp = ctx.xp
    t = x.dtype.type
    with quiet(xp):
        z = x - y
        g = xp.reshape(out_grad, ())
        o = xp.reshape(out, ())
        if p == 0:
            grad = xp.zeros_like(z)
        elif math.isinf(p):
            grad = (xp.abs(z) == o).astype(z.dtype) * xp.sign(z) * g
        else:
            grad = xp.abs(z) ** t(p - 1.0) * xp.sign(z) * g / o ** t(p - 1.0)
        grad = grad.astype(x.dtype, copy=False)
        return as_array(xp, reduce_to(xp, grad, x.shape)), as_array(xp, reduce_to(xp, -grad,
                                                                                   y.shape))


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
