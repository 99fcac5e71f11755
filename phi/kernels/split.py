"""The ``split`` and ``split_with_num`` kernels."""

from __future__ import annotations



from phi.common.int_array import IntArray
from phi.common.scalar import Scalar
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import split_axis, split_sections
from phi.kernels.funcs import owned
from phi.kernels.funcs.manipulation import SPLIT_DTYPES

__all__ = ["split", "split_with_num"]


@register_kernel("split", ("CPU", "GPU"), dtypes=SPLIT_DTYPES)
def split(ctx, x: Tensor, sections: IntArray, axis: Scalar) -> list[Tensor]:
    """x cut along ``axis`` into pieces of the given sizes (one -1 takes the rest)."""
    xp = ctx.xp
    ax = split_axis(x.shape, axis)
    outs = []
    start = 0
    for size in split_sections(x.shape, sections, ax):
        index = (slice(None),) * ax + (slice(start, start + size),)
        outs.append(owned(xp, x[index]))
        start += size
    return outs


@register_kernel("split_with_num", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int8", "uint8", "int32", "int64", "bool",
                         "float16", "bfloat16"])
def split_with_num(ctx, x: Tensor, num: int, axis: Scalar) -> list[Tensor]:
    """x cut along ``axis`` into ``num`` equal pieces."""
    xp = ctx.xp
    ax = split_axis(x.shape, axis)
    size = x.shape[ax] // num
    return [owned(xp, x[(slice(None),) * ax + (slice(i * size, (i + 1) * size),)])
            for i in range(num)]
