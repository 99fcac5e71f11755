"""Fluid kernels of the communication family's local ops: partial_concat and partial_sum
(paddle/fluid/operators/partial_{concat,sum}_op.{cc,h}; STRUCTURE kernels in Paddle 2.6.2):
the columns [start_index, start_index + length) of every 2-D input, concatenated or summed."""

from __future__ import annotations

from phi.core.errors import InvalidArgument

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

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
