"""The ``stack`` and ``stack_grad`` kernels."""

from __future__ import annotations



from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import ALL_DTYPES, owned
from phi.kernels.funcs.backward import grad_kernel

__all__ = ["stack"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json); all four register the same 12
_ALL12 = list(ALL_DTYPES)


STACK_DTYPES = _ALL12


@register_kernel("stack", ("CPU", "GPU"), dtypes=STACK_DTYPES)
def stack(ctx, x: list[Tensor], axis: int) -> Tensor:
    """The tensors of ``x`` (same dims) joined along a new axis ``axis``."""
    return ctx.xp.stack(x, axis=axis)


ALL12 = list(ALL_DTYPES)


@grad_kernel("stack_grad", ("CPU", "GPU"), dtypes=ALL12)
def stack_grad(ctx, out_grad: Tensor, axis: int) -> list[Tensor]:
    """out_grad unstacked along ``axis``."""
    xp = ctx.xp
    ax = axis + out_grad.ndim if axis < 0 else axis
    return [owned(xp, xp.take(out_grad, i, axis=ax)) for i in range(out_grad.shape[ax])]
