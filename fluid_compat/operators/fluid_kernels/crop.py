"""The fluid kernels of crop, crop_grad."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import ints, register
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.crop import crop_array

__all__: list[str] = []


@register("crop_grad", ("float32", "float64"))
class CropGradKernel(FluidKernel):
    """X@GRAD = zeros of X's dims with Out@GRAD at the offsets (attribute or Offsets)."""

    def compute(self, ctx) -> None:
        x, dout = ctx.input_array("X"), ctx.input_array("Out@GRAD")
        if ctx.has_input("Offsets"):
            offs = [int(v) for v in ctx.input_array("Offsets").reshape(-1)]
        else:
            offs = list(ctx.attr("offsets")) or [0] * x.ndim
        g = np.zeros(x.shape, dout.dtype)
        g[tuple(slice(o, o + d) for o, d in zip(offs, dout.shape, strict=True))] = dout
        ctx.set_output("X@GRAD", g)


@register_fluid_kernel("crop", "CPU", ("float32", "float64"))
class CropV1Kernel(FluidKernel):
    """The box of Y's dims (else the ``shape`` attribute; a -1 first dim keeps X's) starting at
    the Offsets tensor's values (else the ``offsets`` attribute)."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        if ctx.has_input("Y"):
            y = ctx.input("Y")
            dims = list(y.shape)
            if len(dims) != x.ndim:
                raise InvalidArgument(f"The number of dimensions ({x.ndim}) of CropOp's input(X)"
                                      f" must be equal to that ({len(dims)}) of input(Y).")
        else:
            dims = list(ctx.attr("shape"))
            if len(dims) != x.ndim:
                raise InvalidArgument(
                    f"The number of elements ({len(dims)}) of CropOp's 'shape' attribute should "
                    f"be equal to the number of dimensions ({x.ndim}) of the Input(X).")
        if ctx.has_input("Offsets"):
            t = ctx.input("Offsets")
            if len(t.shape) != 1:
                raise InvalidArgument(f"The number of dimensions of input 'Offsets' for CropOp "
                                      f"must be 1, but the value received is {len(t.shape)}.")
            offsets = ints(ctx, t, "Offsets", True)
            what = "input 'Offsets'"
        else:
            offsets = list(ctx.attr("offsets"))
            what = "attribute 'offsets'"
        if len(offsets) != x.ndim:
            raise InvalidArgument(f"The number of elements ({len(offsets)}) of {what} for "
                                  f"CropOp must be equal to the number of dimensions ({x.ndim}) "
                                  "of the input tensor.")
        if dims and dims[0] == -1:
            dims[0] = x.shape[0]
        if any(d < 0 for d in dims):
            raise InvalidArgument(f"crop: the output shape {dims} must not be negative.")
        ctx.set_output("Out", crop_array(ctx.dev_ctx, x, dims, offsets))

