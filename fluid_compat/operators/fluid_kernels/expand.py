"""The fluid kernels of expand, expand_grad."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import ints, list_values, register
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.kernels.tile import tile as _tile

__all__: list[str] = []


@register("expand_grad", ("float32", "float64", "int32", "int64"))
class ExpandGradKernel(FluidKernel):
    """X@GRAD = Out@GRAD summed over the expand_times copies of each dim."""

    def compute(self, ctx) -> None:
        x, dout = ctx.input_array("X"), ctx.input_array("Out@GRAD")
        # (copies, size) per dim, summed over the copies (Paddle's reshape + reduce)
        g = dout.reshape([v for d, o in zip(x.shape, dout.shape, strict=True)
                          for v in (o // d if d else 0, d)])
        axes = tuple(range(0, 2 * x.ndim, 2))
        ctx.set_output("X@GRAD", np.sum(g, axis=axes, dtype=g.dtype).reshape(x.shape))


@register_fluid_kernel("expand", "CPU", ("bool", "float32", "float64", "int32", "int64"))
class ExpandV1Kernel(FluidKernel):
    """X tiled ``expand_times`` times per dim (ExpandTimes > expand_times_tensor > attribute)."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        if ctx.has_input("ExpandTimes"):
            times = ints(ctx, ctx.input("ExpandTimes"), "ExpandTimes", True)
        elif ctx.multi_input("expand_times_tensor"):
            times = list_values(ctx, "expand_times_tensor", True)
        else:
            times = list(ctx.attr("expand_times"))
        if not 1 <= x.ndim <= 6:
            raise InvalidArgument(f"The number of dimensions of the input 'x' for Op(expand) "
                                  f"must be in [1, 6], but the value received is {x.ndim}.")
        if len(times) != x.ndim:
            raise InvalidArgument(
                f"The number of elements ({len(times)}) of 'expand_times' for Op(expand) must "
                f"be equal to the number of dimensions ({x.ndim}) of the input.")
        for i, t in enumerate(times):
            if t <= 0:
                raise InvalidArgument(f"The {i}th element of 'expand_times' for Op(expand) must "
                                      f"be greater than 0, but the value given is {t}.")
        ctx.set_output("Out", _tile(ctx.dev_ctx, x, IntArray(times)))

