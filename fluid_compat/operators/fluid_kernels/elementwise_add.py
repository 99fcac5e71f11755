"""The fluid kernels of elementwise_add."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


def _legacy_broadcast_y(xp, x, y, axis: int, op: str):
    """Align Y to X starting at ``axis`` (legacy elementwise rule); -1: trailing alignment."""
    if axis == -1 or x.ndim == y.ndim:
        return y
    if y.ndim > x.ndim:
        raise InvalidArgument(f"{op}: with axis={axis}, Y's rank ({y.ndim}) must not exceed "
                              f"X's rank ({x.ndim}).")
    shape = list(y.shape)
    while len(shape) > 1 and shape[-1] == 1 and axis + len(shape) > x.ndim:
        shape.pop()  # trailing 1s of Y beyond X are dropped, as Paddle's trim_trailing_singular
    if axis < 0 or axis + len(shape) > x.ndim:
        raise InvalidArgument(f"{op}: axis {axis} out of range for X{list(x.shape)} and "
                              f"Y{list(y.shape)}.")
    for i, d in enumerate(shape):
        if d != 1 and d != x.shape[axis + i]:
            raise InvalidArgument(f"{op}: Y{list(y.shape)} does not broadcast to "
                                  f"X{list(x.shape)} at axis {axis}.")
    full = [1] * axis + shape + [1] * (x.ndim - axis - len(shape))
    return xp.reshape(y, tuple(full))


@register_fluid_kernel("elementwise_add", "CPU", ("float32", "float64", "int32", "int64"))
class ElementwiseAddKernel(FluidKernel):
    dtype_tied_inputs = ("X", "Y")

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x, y = ctx.input_array("X"), ctx.input_array("Y")
        y = _legacy_broadcast_y(xp, x, y, ctx.attr("axis"), "elementwise_add")
        ctx.set_output("Out", xp.add(x, y))

