"""The ``p_norm`` and ``p_norm_grad`` kernels."""

from __future__ import annotations

import math

import numpy as np

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import (as_array, quiet)
from phi.kernels.funcs.reduce import broadcast_back

__all__ = ["p_norm"]


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


_F = ["float32", "float64"]


@register_kernel("p_norm_grad", ("CPU", "GPU"), dtypes=_F)
def p_norm_grad(ctx, x: Tensor, out: Tensor, out_grad: Tensor, porder: float, axis: int,
                epsilon: float, keepdim: bool, asvector: bool) -> Tensor:
    """p 0: zeros; +-inf: dout * sign(x) where |x| equals the norm; else
    dout * sign(x) * |x|^(p-1) / (norm^(p-1) + epsilon)."""
    xp = ctx.xp
    t = x.dtype.type
    axes = tuple(range(x.ndim)) if asvector else ((axis % x.ndim,) if x.ndim else ())
    g, n = broadcast_back(xp, out_grad, x, axes), broadcast_back(xp, out, x, axes)
    with quiet(xp):
        if porder == 0:
            return xp.zeros_like(x)
        if math.isinf(porder):
            return as_array(xp, g * xp.sign(x) * (xp.abs(x) == n).astype(x.dtype))
        p1 = t(porder - 1.0)
        return as_array(xp, xp.abs(x) ** p1 * xp.sign(x) * g / (n ** p1 + t(epsilon)))
