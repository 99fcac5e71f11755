"""Helpers shared by the normalization kernels (batch_norm, group_norm, instance_norm,
layer_norm) and their grads."""

from __future__ import annotations


from phi.kernels.funcs import prod

__all__ = ["apply_affine", "centered_grad"]


def apply_affine(xp, y, scale, bias, shape):
    if scale is not None:
        y = y * xp.reshape(scale, shape)
    if bias is not None:
        y = y + xp.reshape(bias, shape)
    return y


def centered_grad(xp, g, xhat, s, axes):
    """s * (g - mean(g) - xhat * mean(g * xhat)) over ``axes`` (the normalized group)."""
    m = g.dtype.type(1) / g.dtype.type(max(1, prod([g.shape[a] for a in axes])))
    mg = xp.sum(g, axis=axes, keepdims=True) * m
    mgx = xp.sum(g * xhat, axis=axes, keepdims=True) * m
    return s * (g - mg - xhat * mgx)
