"""The fluid kernels of partial_concat, partial_concat_grad, partial_sum, partial_sum_grad."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import register
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


def _column_slices(ctx):
    """The inputs' column window, checked as PartialConcatOp / PartialSumOp InferShape do."""
    xs = [t.data for t in ctx.multi_input("X") if t is not None and t.data is not None]
    op = ctx.type
    if not xs:
        raise InvalidArgument(f"{op}: Inputs(X) of {op} should not be empty.")
    for i, x in enumerate(xs):
        if x.ndim != 2:
            raise InvalidArgument(f"{op}: Only support two dimensions input now, but X[{i}] has "
                                  f"dims {list(x.shape)}.")
        if x.shape != xs[0].shape:
            raise InvalidArgument(f"{op}: The shape of all inputs should be same, got "
                                  f"{list(xs[0].shape)} and {list(x.shape)}.")
    width = xs[0].shape[1]
    start, length = int(ctx.attr("start_index")), int(ctx.attr("length"))
    if not -width <= start < width:
        raise InvalidArgument(f"{op}: The start_index is expected to be in range of [{-width}, "
                              f"{width}), but got {start}.")
    if start < 0:
        start += width
    if length > 0 and start + length > width:
        raise InvalidArgument(f"{op}: start_index + length is larger than the input width "
                              f"{width}: {start} + {length}.")
    end = width if length < 0 else start + length
    return [x[:, start:end] for x in xs]


@register_fluid_kernel("partial_concat", "CPU", ("float32", "float64", "int32", "int64",
                                                 "complex64", "complex128"))
class PartialConcatKernel(FluidKernel):
    """Out = concat([x[:, start:start + length] for x in X], axis=1)."""

    def compute(self, ctx) -> None:
        ctx.set_output("Out", ctx.xp.concatenate(_column_slices(ctx), axis=1))


@register_fluid_kernel("partial_sum", "CPU", ("float32", "float64", "int32", "int64"))
class PartialSumKernel(FluidKernel):
    """Out = sum(x[:, start:start + length] for x in X), accumulated input by input."""

    def compute(self, ctx) -> None:
        parts = _column_slices(ctx)
        out = parts[0].copy()
        for p in parts[1:]:
            out += p
        ctx.set_output("Out", out)


EMPTY = "@EMPTY@"


def wanted(ctx, slot: str, index: int = 0) -> bool:
    """The op asks for output ``slot`` [index] (a variable other than @EMPTY@)."""
    names = ctx.op.outputs.get(slot, ())
    return index < len(names) and names[index] != EMPTY


def _partial(ctx, x0):
    """(start, length) of the partial ops' column window in X's rows of ``x0``'s width."""
    n = x0.shape[1]
    start, length = ctx.attr("start_index"), ctx.attr("length")
    start = start + n if start < 0 else start
    length = n - start if length < 0 else length
    if not 0 <= start < n or start + length > n:
        raise InvalidArgument(f"{ctx.type}: start_index {ctx.attr('start_index')} and length "
                              f"{ctx.attr('length')} do not fit the {n} columns of X.")
    return start, length


@register("partial_concat_grad", ("float32", "float64", "int32", "int64",
                                                      "complex64", "complex128"))
class PartialConcatGradKernel(FluidKernel):
    """X@GRAD[i] = zeros with the columns [start, start + length) taken from block i of
    Out@GRAD."""

    def compute(self, ctx) -> None:
        xs = ctx.multi_input("X")
        dout = ctx.input_array("Out@GRAD")
        start, length = _partial(ctx, xs[0].data)
        for i, x in enumerate(xs):
            if not wanted(ctx, "X@GRAD", i):
                continue
            g = np.zeros(x.data.shape, dout.dtype)
            g[:, start:start + length] = dout[:, i * length:(i + 1) * length]
            ctx.set_output("X@GRAD", g, index=i)


@register("partial_sum_grad", ("float32", "float64", "int32", "int64"))
class PartialSumGradKernel(FluidKernel):
    """X@GRAD[i] = zeros with Out@GRAD in the columns [start, start + length)."""

    def compute(self, ctx) -> None:
        xs = ctx.multi_input("X")
        dout = ctx.input_array("Out@GRAD")
        start, length = _partial(ctx, xs[0].data)
        for i, x in enumerate(xs):
            if not wanted(ctx, "X@GRAD", i):
                continue
            g = np.zeros(x.data.shape, dout.dtype)
            g[:, start:start + length] = dout
            ctx.set_output("X@GRAD", g, index=i)

