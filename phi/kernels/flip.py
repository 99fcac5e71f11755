"""The ``flip`` kernel."""

from __future__ import annotations



from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import flip_axes
from phi.kernels.funcs import owned

__all__ = ["flip"]


_F_I = ["float32", "float64", "int32", "int64"]


FLIP_DTYPES = ["bool", *_F_I, "complex64", "complex128"]


@register_kernel("flip", ("CPU", "GPU"), dtypes=FLIP_DTYPES)
def flip(ctx, x: Tensor, axis: list[int]) -> Tensor:
    """x reversed along each axis of ``axis`` (an axis named twice is reversed once)."""
    axes = flip_axes(x.ndim, axis)
    return owned(ctx.xp, ctx.xp.flip(x, axis=axes)) if axes else owned(ctx.xp, x)
