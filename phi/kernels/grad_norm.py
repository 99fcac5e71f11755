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

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import prod, quiet

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
