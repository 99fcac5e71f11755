"""The ``roll`` and ``roll_grad`` kernels."""

from __future__ import annotations



from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.core.kernel import Int64, Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import norm_axis
from phi.kernels.funcs import owned
from phi.kernels.funcs.backward import grad_kernel

__all__ = ["roll"]


_F_I = ["float32", "float64", "int32", "int64"]


ROLL_DTYPES = [*_F_I, "complex64", "complex128"]


@register_kernel("roll", ("CPU", "GPU"), dtypes=ROLL_DTYPES)
def roll(ctx, x: Tensor, shifts: IntArray, axis: list[int]) -> Tensor:
    """x rolled by ``shifts`` along ``axis`` (no axis: x flattened, rolled, reshaped)."""
    xp = ctx.xp
    n = list(shifts.data)
    if axis:
        if len(n) != len(axis):
            raise InvalidArgument(f"When dims.size() != 0, dims.size() should be equal to "
                                  f"shifts.size(). But received dims.size() = {len(axis)}, "
                                  f"shifts.size() = {len(n)}")
        out = x
        for s, a in zip(n, axis, strict=True):
            a = norm_axis(int(a), x.ndim, "roll")
            if x.shape[a]:
                out = xp.roll(out, int(s) % x.shape[a], axis=a)
        return owned(xp, out)
    if len(n) != 1:
        raise InvalidArgument(f"shifts.size() should be equal to 1 when dims is empty, but "
                              f"received shifts.size() = {len(n)}")
    flat = xp.reshape(x, (-1,))
    if flat.shape[0]:
        flat = xp.roll(flat, int(n[0]) % flat.shape[0])
    return xp.reshape(owned(xp, flat), x.shape)


@grad_kernel("roll_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "complex64", "complex128"])
def roll_grad(ctx, x: Tensor, out_grad: Tensor, shifts: IntArray, axis: list[Int64]) -> Tensor:
    """out_grad rolled back."""
    return roll(ctx, out_grad, IntArray([-int(s) for s in shifts.data]), axis)
