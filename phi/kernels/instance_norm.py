"""The ``instance_norm`` and ``instance_norm_grad`` kernels."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, prod, quiet
from phi.kernels.funcs.norm import apply_affine, centered_grad

__all__ = ["instance_norm", "instance_norm_grad"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
NORM_DTYPES = ["float32", "float64"]


@register_kernel("instance_norm", ("CPU", "GPU"), dtypes=NORM_DTYPES)
def instance_norm(ctx, x: Tensor, scale: Tensor | None, bias: Tensor | None,
                  epsilon: float) -> tuple[Tensor, Tensor, Tensor]:
    """(y, saved_mean, saved_inv_std): each (sample, channel) plane normalized, then scaled
    and shifted per channel; the statistics are [N * C]."""
    xp = ctx.xp
    t = x.dtype.type
    n, c = x.shape[0], x.shape[1]
    planes = xp.reshape(x, (n, c, prod(x.shape[2:])))  # explicit: -1 fails on empty x
    with quiet(xp):
        mean = xp.mean(planes, axis=2, keepdims=True)
        var = xp.mean((planes - mean) ** 2, axis=2, keepdims=True)
        inv_std = t(1) / xp.sqrt(var + t(epsilon))
        y = apply_affine(xp, (planes - mean) * inv_std, scale, bias, (1, c, 1))
    return (as_array(xp, xp.reshape(y, x.shape)), xp.reshape(mean, (n * c,)),
            xp.reshape(inv_std, (n * c,)))


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json): float and double
NORM_GRAD_DTYPES = ["float32", "float64"]


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
        dx = centered_grad(xp, dy * gamma, xhat, s, (2,))
    dscale = xp.sum(dy * xhat, axis=(0, 2)).astype(x.dtype)
    dbias = xp.sum(dy, axis=(0, 2)).astype(x.dtype)
    return xp.reshape(dx, x.shape).astype(x.dtype), dscale, dbias
