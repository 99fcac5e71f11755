"""The ``addmm`` and ``addmm_grad`` kernels."""

from __future__ import annotations

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet
from phi.kernels.funcs.elementwise import reduce_to

__all__ = ["addmm"]


_F = ["float32", "float64"]


@register_kernel("addmm", ("CPU", "GPU"), dtypes=_F)
def addmm(ctx, input: Tensor, x: Tensor, y: Tensor, beta: float, alpha: float) -> Tensor:
    """beta * input + alpha * (x @ y), input broadcast to [m, n]; with beta 0 the GEMM never
    reads input (a NaN there does not propagate)."""
    xp = ctx.xp
    dt = x.dtype.type
    with quiet(xp):
        prod = xp.matmul(x, y) * dt(alpha)
        if beta == 0:
            return as_array(xp, prod)
        return as_array(xp, prod + dt(beta) * input)


@register_kernel("addmm_grad", ("CPU", "GPU"), dtypes=_F)
def addmm_grad(ctx, input: Tensor, x: Tensor, y: Tensor, out_grad: Tensor, alpha: float,
               beta: float) -> tuple[Tensor, Tensor, Tensor]:
    """dinput = beta * dout summed to input's dims, dx = alpha * dout @ y^T,
    dy = alpha * x^T @ dout."""
    xp = ctx.xp
    dt = out_grad.dtype.type
    with quiet(xp):
        dinput = reduce_to(xp, out_grad * dt(beta), input.shape)
        dx = (out_grad @ y.T) * dt(alpha)
        dy = (x.T @ out_grad) * dt(alpha)
    return as_array(xp, dinput), as_array(xp, dx), as_array(xp, dy)
