"""The ``reverse`` kernel."""

from __future__ import annotations



from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import flip_axes
from phi.kernels.funcs import owned

__all__ = ["reverse"]


_F_I = ["float32", "float64", "int32", "int64"]


REVERSE_DTYPES = ["bool", "uint8", *_F_I]


@register_kernel("reverse", ("CPU", "GPU"), dtypes=REVERSE_DTYPES)
def reverse(ctx, x: Tensor, axis: IntArray) -> Tensor:
    """x reversed along ``axis`` (non-empty; an axis named twice is reversed once)."""
    if not axis.data:
        raise InvalidArgument("reverse: 'axis' can not be empty.")
    axes = flip_axes(x.ndim, axis.data, "reverse")
    return owned(ctx.xp, ctx.xp.flip(x, axis=axes))
