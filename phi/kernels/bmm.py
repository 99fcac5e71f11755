"""The ``bmm`` and ``bmm_grad`` kernels."""

from __future__ import annotations

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array
from phi.kernels.funcs.matmul import matmul_grads

__all__ = ["bmm"]


_F = ["float32", "float64"]


@register_kernel("bmm", ("CPU", "GPU"), dtypes=_F)
def bmm(ctx, x: Tensor, y: Tensor) -> Tensor:
    """Batched matrix product of 3-D tensors."""
    return as_array(ctx.xp, ctx.xp.matmul(x, y))


@register_kernel("bmm_grad", ("CPU", "GPU"), dtypes=_F)
def bmm_grad(ctx, x: Tensor, y: Tensor, out_grad: Tensor) -> tuple[Tensor, Tensor]:
    """dx = dout @ y^T, dy = x^T @ dout per batch."""
    return matmul_grads(ctx, x, y, out_grad, False, False)
