"""The ``dist`` and ``dist_grad`` kernels."""

from __future__ import annotations

import math


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import (as_array, quiet)
from phi.kernels.funcs.elementwise import reduce_to

__all__ = ["dist"]


_F = ["float32", "float64"]


@register_kernel("dist", ("CPU", "GPU"), dtypes=_F)
def dist(ctx, x: Tensor, y: Tensor, p: float) -> Tensor:
    """p-norm of x - y (broadcast): p 0 counts non-zeros, +-inf max / min of |x - y|."""
    xp = ctx.xp
    with quiet(xp):
        d = xp.abs(x - y)
        if p == 0:
            r = xp.sum(d != 0).astype(x.dtype)
        elif p == float("inf"):
            r = xp.max(d)
        elif p == float("-inf"):
            r = xp.min(d)
        else:
            r = xp.sum(d ** x.dtype.type(p)) ** x.dtype.type(1.0 / p)
    return as_array(xp, xp.asarray(r, dtype=x.dtype))


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
