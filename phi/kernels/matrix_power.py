"""The ``matrix_power`` and ``matrix_power_grad`` kernels."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import square_dims
from phi.kernels.funcs import quiet
from phi.kernels.funcs.linalg import conj_transpose, contiguous_as
from phi.kernels.inverse import inverse

__all__ = ["matrix_power"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


@register_kernel("matrix_power", ("CPU", "GPU"), dtypes=REAL)
def matrix_power(ctx, x: Tensor, n: int) -> Tensor:
    """x^n (n = 0: identity; n < 0: the inverse's power, singular input raises)."""
    xp = ctx.xp
    square_dims(x.shape, "matrix_power")
    if n < 0:
        x = inverse(ctx, x)
    if x.size == 0:
        return xp.zeros(x.shape, x.dtype)
    return xp.linalg.matrix_power(x, abs(n)).astype(x.dtype, copy=False)


_F = ["float32", "float64"]


@register_kernel("matrix_power_grad", ("CPU", "GPU"), dtypes=_F)
def matrix_power_grad(ctx, x: Tensor, out: Tensor, out_grad: Tensor, n: int) -> Tensor:
    """n = 0: zeros; n > 0: sum_i (X^H)^i dOut (X^H)^(n-1-i); n < 0: the same for X^-1 and
    |n|, then dX = -X^-H dY X^-H."""
    xp = ctx.xp
    if n == 0:
        return xp.zeros(x.shape, x.dtype)
    with quiet(xp):
        base = xp.linalg.inv(x) if n < 0 else x
        base = base.astype(x.dtype, copy=False)
        bh = conj_transpose(xp, base)
        p = abs(n)
        powers = [xp.broadcast_to(xp.eye(x.shape[-1], dtype=x.dtype), x.shape)]
        for _ in range(p - 1):
            powers.append(powers[-1] @ bh)
        g = sum(powers[i] @ out_grad @ powers[p - 1 - i] for i in range(p))
        if n < 0:
            g = -(bh @ g @ bh)
    return contiguous_as(xp, g, x.dtype)
