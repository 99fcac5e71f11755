"""The ``maxout`` and ``maxout_grad`` kernels."""

from __future__ import annotations



from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import maxout_axis

__all__ = ["maxout"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
FLOAT_DTYPES = ["float32", "float64"]


FLT_MAX = 3.4028234663852886e38
"""C's FLT_MAX: the max pools' initial value (-FLT_MAX, for double too)."""


@register_kernel("maxout", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def maxout(ctx, x: Tensor, groups: int, axis: int) -> Tensor:
    """Max over each run of ``groups`` consecutive channels (axis 1, or 3 / -1 for NHWC),
    MaxOutFunctor's way: from -FLT_MAX, ``ele > x ? ele : x`` (a NaN survives only as the
    group's last element)."""
    xp = ctx.xp
    axis = maxout_axis(x.shape, groups, axis)
    shape = list(x.shape)
    shape[axis:axis + 1] = [shape[axis] // groups, groups]
    parts = xp.reshape(x, shape)
    ele = xp.full(shape[:axis + 1] + shape[axis + 2:], -FLT_MAX, dtype=x.dtype)
    for g in range(groups):
        part = xp.take(parts, g, axis=axis + 1)
        ele = xp.where(ele > part, ele, part)
    return ele


FLOATS = ["float32", "float64"]


@register_kernel("maxout_grad", ("CPU", "GPU"), dtypes=FLOATS)
def maxout_grad(ctx, x: Tensor, out: Tensor, out_grad: Tensor, groups: int,
                axis: int) -> Tensor:
    """Each output's gradient to the first element of its group equal to the output
    (MaxOutGradFunctor); a group with none (a NaN output) passes nothing."""
    xp = ctx.xp
    axis = maxout_axis(x.shape, groups, axis)
    shape = list(x.shape)
    shape[axis:axis + 1] = [shape[axis] // groups, groups]
    parts = xp.reshape(x, shape)
    o = xp.expand_dims(out, axis + 1)
    hit = parts == o
    first = hit & (xp.cumsum(hit, axis=axis + 1) == 1)
    dx = xp.where(first, xp.expand_dims(out_grad, axis + 1), x.dtype.type(0))
    return xp.reshape(dx, x.shape)
