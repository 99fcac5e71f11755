"""The ``spectral_norm`` and ``spectral_norm_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import (as_array, quiet)

__all__ = ["spectral_norm"]


FLOAT_DTYPES = ["float32", "float64"]


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


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json): float and double
NORM_GRAD_DTYPES = ["float32", "float64"]


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
