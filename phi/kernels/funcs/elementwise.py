"""Helpers shared by the element-wise binary kernels and their grads: the axis alignment of
legacy broadcasting, the empty-broadcast check and the sum of a gradient down to a shape."""

from __future__ import annotations



from phi.common.data_type import DataType
from phi.core.errors import PreconditionNotMet
from phi.kernels.funcs import (as_array, quiet,
                               to_half)

__all__ = ["align_axis", "empty_broadcast_check", "reduce_to", "sum_to_shape"]


def empty_broadcast_check(name: str, x, y) -> None:
    # Paddle 2.6.2's CPU ElementwiseCompute never allocates an empty output when x and y
    # differ in dims (broadcasting): it fails, so a program doing that fails here too
    if (x.size == 0 or y.size == 0) and tuple(x.shape) != tuple(y.shape):
        raise PreconditionNotMet(
            f"{name}: The meta data must be valid when call the mutable data function (Paddle "
            f"2.6.2 cannot broadcast X {list(x.shape)} and Y {list(y.shape)} to an empty "
            "output).")


# -- the legacy `_raw` kernels: elementwise ops of legacy programs with an `axis` -----------------
# elementwise_add(axis != -1) maps to add_raw etc. (Paddle 2.6.2 keeps them for old programs):
# the lower-rank operand is aligned to the other starting at `axis`.

def align_axis(xp, x, y, axis: int):
    if axis == -1 or x.ndim == y.ndim:
        return x, y
    if x.ndim > y.ndim:
        pad = x.ndim - y.ndim - axis
        return x, xp.reshape(y, (1,) * axis + tuple(y.shape) + (1,) * pad)
    pad = y.ndim - x.ndim - axis
    return xp.reshape(x, (1,) * axis + tuple(x.shape) + (1,) * pad), y


def reduce_to(xp, g, shape, axis: int = -1):
    """``g`` (the broadcast output's gradient) summed back to ``shape``: the lower-rank operand
    sits at ``axis`` (-1: trailing, numpy's rule) and every dim it broadcast along is summed."""
    shape = tuple(int(d) for d in shape)
    if g is None or tuple(g.shape) == shape:
        return g
    n = len(shape)
    if n < g.ndim:
        lead = g.ndim - n if axis == -1 else axis
        aligned = (1,) * lead + shape + (1,) * (g.ndim - n - lead)
    else:
        aligned = shape
    dims = tuple(i for i, (a, b) in enumerate(zip(aligned, g.shape, strict=True))
                 if a == 1 and b != 1)
    with quiet(xp):
        r = xp.sum(g, axis=dims, keepdims=True, dtype=g.dtype) if dims else g
    return xp.reshape(r, shape)


def sum_to_shape(ctx, g, like, axis: int = -1):
    """``reduce_to`` in ``like``'s dtype (half types summed in float32, truncated back)."""
    if g is None:
        return None
    dtype = ctx.data_type(like)
    if dtype in (DataType.FLOAT16, DataType.BFLOAT16):
        return to_half(ctx, reduce_to(ctx.xp, ctx.astype(g, DataType.FLOAT32), like.shape, axis),
                       dtype)
    return as_array(ctx.xp, reduce_to(ctx.xp, g, like.shape, axis))
