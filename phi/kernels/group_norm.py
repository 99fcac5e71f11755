"""The ``group_norm`` and ``group_norm_grad`` kernels."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, prod, quiet
from phi.kernels.funcs.norm import apply_affine, centered_grad

__all__ = ["group_norm", "group_norm_grad"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
NORM_DTYPES = ["float32", "float64"]


@register_kernel("group_norm", ("CPU", "GPU"), dtypes=NORM_DTYPES)
def group_norm(ctx, x: Tensor, scale: Tensor | None, bias: Tensor | None, epsilon: float,
               groups: int, data_layout: str) -> tuple[Tensor, Tensor, Tensor]:
    """(y, mean, variance): channels split into ``groups``, each (sample, group) normalized,
    then scaled and shifted per channel; the statistics are [N, groups]."""
    xp = ctx.xp
    t = x.dtype.type
    channel_last = data_layout == "NHWC"
    xc = xp.moveaxis(x, -1, 1) if channel_last else x
    n, c = xc.shape[0], xc.shape[1]
    grouped = xp.reshape(xc, (n, groups, prod(xc.shape[1:]) // max(groups, 1)))
    with quiet(xp):
        mean = xp.mean(grouped, axis=2, keepdims=True)
        var = xp.maximum(xp.mean(grouped * grouped, axis=2, keepdims=True) - mean * mean, t(0))
        y = (grouped - mean) / xp.sqrt(var + t(epsilon))
        y = apply_affine(xp, xp.reshape(y, (n, c, prod(xc.shape[2:]))), scale, bias, (1, c, 1))
    y = xp.reshape(y, xc.shape)
    if channel_last:
        y = xp.moveaxis(y, 1, -1)
    return (as_array(xp, xp.asarray(y, copy=True)), xp.reshape(mean, (n, groups)),
            xp.reshape(var, (n, groups)))


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json): float and double
NORM_GRAD_DTYPES = ["float32", "float64"]


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
        dx = centered_grad(xp, dy * gamma, xhat, s, (2, 3))
    dx = xp.reshape(dx, xc.shape)
    if cl:
        dx = xp.moveaxis(dx, 1, -1)
    dscale = (xp.reshape(xp.sum(dy * xhat, axis=(0, 3)), (c,)).astype(x.dtype)
              if scale is not None else None)
    dbias = (xp.reshape(xp.sum(dy, axis=(0, 3)), (c,)).astype(x.dtype)
             if bias is not None else None)
    return xp.ascontiguousarray(dx, dtype=x.dtype), dscale, dbias
