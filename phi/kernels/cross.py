"""The ``cross`` and ``cross_grad`` kernels."""

from __future__ import annotations

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import cross_axis
from phi.kernels.funcs import as_array, quiet

__all__ = ["cross"]


@register_kernel("cross", ("CPU", "GPU"), dtypes=["float32", "float64", "int32", "int64"])
def cross(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """Cross product of 3-vectors along ``axis`` (9: the first axis of size 3)."""
    xp = ctx.xp
    ax = cross_axis(tuple(x.shape), axis)
    with quiet(xp):
        return as_array(xp, xp.cross(x, y, axis=ax))


@register_kernel("cross_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "int32", "int64"])
def cross_grad(ctx, x: Tensor, y: Tensor, out_grad: Tensor, axis: int) -> tuple[Tensor, Tensor]:
    """dx = y x dout, dy = dout x x along the cross axis."""
    xp = ctx.xp
    ax = cross_axis(tuple(x.shape), axis)
    with quiet(xp):
        return (as_array(xp, xp.cross(y, out_grad, axis=ax)),
                as_array(xp, xp.cross(out_grad, x, axis=ax)))
