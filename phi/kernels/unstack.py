"""The ``unstack`` and ``unstack_grad`` kernels."""

from __future__ import annotations



from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import owned
from phi.kernels.funcs.backward import grad_kernel

__all__ = ["unstack"]


UNSTACK_DTYPES = ["float32", "float64", "int32", "int64", "complex64", "complex128"]


@register_kernel("unstack", ("CPU", "GPU"), dtypes=UNSTACK_DTYPES)
def unstack(ctx, x: Tensor, axis: int, num: int) -> list[Tensor]:
    """The slices of x along ``axis``, that axis removed."""
    xp = ctx.xp
    axis = axis + x.ndim if axis < 0 else axis
    return [owned(xp, xp.take(x, i, axis=axis)) for i in range(x.shape[axis])]


@grad_kernel("unstack_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "complex64", "complex128"])
def unstack_grad(ctx, out_grad: list[Tensor], axis: int) -> Tensor:
    """The output gradients stacked along ``axis``."""
    xp = ctx.xp
    ax = axis + out_grad[0].ndim + 1 if axis < 0 else axis
    return xp.stack(out_grad, axis=ax)
