"""Gradients of the normalizations: batch_norm_grad, layer_norm_grad, group_norm_grad,
instance_norm_grad (Paddle's paddle/phi/kernels/cpu/*_norm_grad_kernel.cc).

All four normalize groups of elements by their mean and inverse standard deviation s, then
apply a per-channel (or per-feature) scale and bias.  With xhat = (x - mean) * s, per group of
M elements and g = dy * scale:

* training statistics: dx = s * (g - mean(g) - xhat * mean(g * xhat));
* fixed statistics (batch_norm with use_global_stats, or is_test): dx = s * g;
* dscale = sum(dy * xhat), dbias = sum(dy) over everything but the channel.

The saved statistics are Paddle's: batch_norm and instance_norm save s itself
(SavedVariance), layer_norm and group_norm the variance (s = 1 / sqrt(var + epsilon)).
"""

from __future__ import annotations

import numpy as np

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import prod, quiet
from phi.kernels.statistics import spectral_power_iteration

__all__ = ["batch_norm_grad", "group_norm_grad", "instance_norm_grad", "layer_norm_grad"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json): float and double
NORM_GRAD_DTYPES = ["float32", "float64"]


def _centered_grad(xp, g, xhat, s, axes):
    """s * (g - mean(g) - xhat * mean(g * xhat)) over ``axes`` (the normalized group)."""
    m = g.dtype.type(1) / g.dtype.type(max(1, prod([g.shape[a] for a in axes])))
    mg = xp.sum(g, axis=axes, keepdims=True) * m
    mgx = xp.sum(g * xhat, axis=axes, keepdims=True) * m
    return s * (g - mg - xhat * mgx)


@register_kernel("batch_norm_grad", ("CPU", "GPU"), dtypes=NORM_GRAD_DTYPES)
def batch_norm_grad(ctx, x: Tensor, scale: Tensor | None, bias: Tensor | None,
                    mean: Tensor | None, variance: Tensor | None, saved_mean: Tensor,
                    saved_variance: Tensor, reserve_space: Tensor | None, y_grad: Tensor,
                    momentum: float, epsilon: float, data_layout: str, is_test: bool,
                    use_global_stats: bool, trainable_statistics: bool
                    ) -> tuple[Tensor, Tensor, Tensor]:
    """(dx, dscale, dbias) of batch_norm: the batch's saved statistics in training, the running
    Mean / Variance when use_global_stats (or is_test without trainable_statistics)."""
    xp = ctx.xp
    t = x.dtype.type
    c_axis = x.ndim - 1 if data_layout == "NHWC" and x.ndim > 2 else 1
    c = x.shape[c_axis]
    shape = [1] * x.ndim
    shape[c_axis] = c
    axes = tuple(a for a in range(x.ndim) if a != c_axis)
    fixed = use_global_stats or (is_test and not trainable_statistics)
    with quiet(xp):
        if fixed:
            mu = xp.reshape(mean, shape)
            s = t(1) / xp.sqrt(xp.reshape(variance, shape) + t(epsilon))
        else:
            mu = xp.reshape(saved_mean, shape)
            s = xp.reshape(saved_variance, shape)
        gamma = xp.reshape(scale, shape) if scale is not None else t(1)
        xhat = (x - mu) * s
        dbias = xp.sum(y_grad, axis=axes)
        dscale = xp.sum(y_grad * xhat, axis=axes)
        g = y_grad * gamma
        dx = s * g if fixed else _centered_grad(xp, g, xhat, s, axes)
    return xp.asarray(dx, dtype=x.dtype), dscale.astype(x.dtype), dbias.astype(x.dtype)


@register_kernel("layer_norm_grad", ("CPU", "GPU"), dtypes=NORM_GRAD_DTYPES)
def layer_norm_grad(ctx, x: Tensor, scale: Tensor | None, bias: Tensor | None, mean: Tensor,
                    variance: Tensor, y_grad: Tensor, epsilon: float, begin_norm_axis: int
                    ) -> tuple[Tensor, Tensor, Tensor]:
    """(dx, dscale, dbias) of layer_norm: rows x.dims[:begin_norm_axis] normalized over the
    rest; dscale / dbias (flattened features) only where Scale / Bias are given."""
    xp = ctx.xp
    t = x.dtype.type
    left = prod(x.shape[:begin_norm_axis])
    right = prod(x.shape[begin_norm_axis:])
    rows = xp.reshape(x, (left, right))
    dy = xp.reshape(y_grad, (left, right))
    with quiet(xp):
        s = t(1) / xp.sqrt(xp.reshape(variance, (left, 1)) + t(epsilon))
        xhat = (rows - xp.reshape(mean, (left, 1))) * s
        g = dy * xp.reshape(scale, (1, right)) if scale is not None else dy
        dx = _centered_grad(xp, g, xhat, s, (1,)) if left else xp.zeros_like(rows)
    dscale = xp.sum(dy * xhat, axis=0).astype(scale.dtype) if scale is not None else None
    dbias = xp.sum(dy, axis=0).astype(bias.dtype) if bias is not None else None
    return xp.reshape(dx, x.shape).astype(x.dtype), dscale, dbias


@register_kernel("group_norm_grad", ("CPU", "GPU"), dtypes=NORM_GRAD_DTYPES)
def group_norm_grad(ctx, x: Tensor, scale: Tensor | None, bias: Tensor | None, y: Tensor,
                    mean: Tensor, variance: Tensor, y_grad: Tensor, epsilon: float,
                    groups: int, data_layout: str) -> tuple[Tensor, Tensor, Tensor]:
    """(dx, dscale, dbias) of group_norm: each (sample, group) normalized by its saved mean
    and variance; per-channel dscale / dbias."""
    xp = ctx.xp
    t = x.dtype.type
    cl = data_layout == "NHWC"
    xc = xp.moveaxis(x, -1, 1) if cl else x
    dyc = xp.moveaxis(y_grad, -1, 1) if cl else y_grad
    n, c = xc.shape[:2]
    hw = prod(xc.shape[2:])
    shape = (n, groups, c // max(groups, 1), hw)
    xg = xp.reshape(xc, shape)
    dy = xp.reshape(dyc, shape)
    with quiet(xp):
        s = t(1) / xp.sqrt(xp.reshape(variance, (n, groups, 1, 1)) + t(epsilon))
        xhat = (xg - xp.reshape(mean, (n, groups, 1, 1))) * s
        gamma = xp.reshape(scale, (1, groups, -1, 1)) if scale is not None else t(1)
        dx = _centered_grad(xp, dy * gamma, xhat, s, (2, 3))
    dx = xp.reshape(dx, xc.shape)
    if cl:
        dx = xp.moveaxis(dx, 1, -1)
    dscale = (xp.reshape(xp.sum(dy * xhat, axis=(0, 3)), (c,)).astype(x.dtype)
              if scale is not None else None)
    dbias = (xp.reshape(xp.sum(dy, axis=(0, 3)), (c,)).astype(x.dtype)
             if bias is not None else None)
    return xp.ascontiguousarray(dx, dtype=x.dtype), dscale, dbias


@register_kernel("instance_norm_grad", ("CPU", "GPU"), dtypes=NORM_GRAD_DTYPES)
def instance_norm_grad(ctx, x: Tensor, scale: Tensor | None, saved_mean: Tensor,
                       saved_variance: Tensor, y_grad: Tensor, epsilon: float
                       ) -> tuple[Tensor, Tensor, Tensor]:
    """(dx, dscale, dbias) of instance_norm: each (sample, channel) plane normalized by its
    saved mean and inverse standard deviation; per-channel dscale / dbias."""
    xp = ctx.xp
    n, c = x.shape[:2]
    shape = (n, c, prod(x.shape[2:]))
    planes = xp.reshape(x, shape)
    dy = xp.reshape(y_grad, shape)
    with quiet(xp):
        s = xp.reshape(saved_variance, (n, c, 1))
        xhat = (planes - xp.reshape(saved_mean, (n, c, 1))) * s
        gamma = xp.reshape(scale, (1, c, 1)) if scale is not None else x.dtype.type(1)
        dx = _centered_grad(xp, dy * gamma, xhat, s, (2,))
    dscale = xp.sum(dy * xhat, axis=(0, 2)).astype(x.dtype)
    dbias = xp.sum(dy, axis=(0, 2)).astype(x.dtype)
    return xp.reshape(dx, x.shape).astype(x.dtype), dscale, dbias


@register_kernel("spectral_norm_grad", ("CPU", "GPU"), dtypes=NORM_GRAD_DTYPES)
def spectral_norm_grad(ctx, weight: Tensor, u: Tensor, v: Tensor, out_grad: Tensor, dim: int,
                       power_iters: int, eps: float) -> Tensor:
    """dW of spectral_norm as Paddle's kernel computes it: the power iterations run again from U
    and V, then dW = dOut * (1 - u v^T * sum(W / sigma)) / sigma (the sum is over W / sigma
    alone, not weighted by dOut: not the true gradient, but what Paddle 2.6.2 returns)."""
    xp = ctx.xp
    t = weight.dtype.type
    perm, w, uu, vv, sigma = spectral_power_iteration(xp, weight, u, v, dim, power_iters, eps)
    moved = xp.transpose(weight, perm)
    dout = xp.reshape(xp.transpose(out_grad, perm), w.shape)
    with quiet(xp):
        dw = dout * (t(1) - xp.outer(uu, vv) * xp.sum(w / sigma)) / sigma
    dw = xp.reshape(dw, moved.shape)
    return xp.ascontiguousarray(xp.transpose(dw, tuple(int(i) for i in np.argsort(perm))),
                                dtype=weight.dtype)
