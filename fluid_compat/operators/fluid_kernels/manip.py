"""Fluid kernels of helper `manip`'s ops.

``expand``, ``reshape`` and ``crop`` (v1) are deprecated names in Paddle 2.6.2: their phi names
belong to the v2 ops, so they run fluid kernels.  Each is a thin adapter over the phi kernel of
its successor (tile, reshape_infer, crop): v1 differs only in where the sizes come from.
``fill_zeros_like2`` and ``unzip`` are STRUCTURE kernels in Paddle (fluid kernels re-registered in
the phi table; their recorded signature is empty): fluid kernels here, as shuffle_channel.
"""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument, Unimplemented
from phi.kernels.tile import tile as _tile
from phi.kernels.crop import crop_array
from phi.kernels.reshape import reshape_infer as _reshape

__all__: list[str] = []


def _ints(ctx, t, slot: str, int32_only: bool) -> list[int]:
    """The values of a shape-like tensor, read as Paddle reads it: ``data<int>()`` (int32 only)
    or int32 / int64 by dtype."""
    allowed = (DataType.INT32,) if int32_only else (DataType.INT32, DataType.INT64)
    if t.dtype not in allowed:
        raise InvalidArgument(
            f"{ctx.type}: Input({slot}) holds the wrong type, it holds {t.dtype}, but desires "
            f"to be {' or '.join(str(d) for d in allowed)}.")
    return [int(v) for v in np.asarray(t.numpy()).reshape(-1)]


def _list_values(ctx, slot: str, int32_only: bool) -> list[int]:
    """One value per tensor of a ``*TensorList`` input (each of shape [1] or [])."""
    values = []
    for t in ctx.multi_input(slot):
        if tuple(t.shape) not in ((1,), ()):
            raise InvalidArgument(f"{ctx.type}: the shape of each Tensor in Input({slot}) must "
                                  f"be [1] or [], but received {list(t.shape)}.")
        values += _ints(ctx, t, slot, int32_only)
    return values


@register_fluid_kernel("expand", "CPU", ("bool", "float32", "float64", "int32", "int64"))
class ExpandV1Kernel(FluidKernel):
    """X tiled ``expand_times`` times per dim (ExpandTimes > expand_times_tensor > attribute)."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        if ctx.has_input("ExpandTimes"):
            times = _ints(ctx, ctx.input("ExpandTimes"), "ExpandTimes", True)
        elif ctx.multi_input("expand_times_tensor"):
            times = _list_values(ctx, "expand_times_tensor", True)
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


@register_fluid_kernel("reshape", "CPU", ("float32", "float64", "int16", "int32", "int64"))
class ReshapeV1Kernel(FluidKernel):
    """X with new dims (ShapeTensor list > Shape tensor > attribute; 0 copies, one -1)."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        if ctx.multi_input("ShapeTensor"):
            shape = _list_values(ctx, "ShapeTensor", False)
        elif ctx.has_input("Shape"):
            shape = _ints(ctx, ctx.input("Shape"), "Shape", True)
        else:
            shape = list(ctx.attr("shape"))
        ctx.set_output("Out", _reshape(ctx.dev_ctx, x, IntArray(shape)))


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
            offsets = _ints(ctx, t, "Offsets", True)
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


@register_fluid_kernel("fill_zeros_like2", "CPU", ("bool", "float32", "float64", "int32",
                                                   "int64", "complex64", "complex128"))
class FillZerosLike2Kernel(FluidKernel):
    """Out = zeros shaped as X, of the ``dtype`` attribute (the expected kernel type's)."""

    def compute(self, ctx) -> None:
        dtype = self.kernel_type.dtype
        ctx.set_output("Out", ctx.dev_ctx.full(tuple(ctx.input("X").shape),
                                               ctx.dev_ctx.asarray(0, dtype), dtype), dtype)


@register_fluid_kernel("unzip", "CPU", ("int64", "complex64", "complex128"))
class UnzipKernel(FluidKernel):
    """Paddle 2.6.2's CPU unzip kernel is a stub: it raises Unimplemented."""

    def compute(self, ctx) -> None:
        raise Unimplemented("unzip is unimplemented on CPU (Paddle 2.6.2's CPU kernel of "
                            "`unzip` raises the same).")
