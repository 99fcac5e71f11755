"""Fluid-only kernels of data-movement ops (their names have no phi kernel in Paddle 2.6.2:
``lookup_table`` and ``flatten2`` ran fluid kernels there too)."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


@register_fluid_kernel("lookup_table", "CPU", ("float32", "float64", "int8", "int16", "bfloat16"))
class LookupTableKernel(FluidKernel):
    """Rows of W picked by Ids (shape [..., 1]); padding_idx rows are zeros."""

    dtype_tied_inputs = ("W",)

    def compute(self, ctx) -> None:
        xp = ctx.xp
        w, ids = ctx.input_array("W"), ctx.input_array("Ids")
        if ids.ndim == 0 or ids.shape[-1] != 1:
            raise InvalidArgument(f"lookup_table: Ids must end with a dimension of 1, got "
                                  f"{list(ids.shape)}.")
        flat = xp.reshape(ids, (-1,)).astype("int64")
        if flat.size and (int(flat.min()) < 0 or int(flat.max()) >= w.shape[0]):
            bad = [int(i) for i in flat if i < 0 or i >= w.shape[0]][:3]
            raise InvalidArgument(f"lookup_table: Ids {bad} out of range [0, {w.shape[0]}).")
        out = w[flat]
        padding_idx = ctx.attr("padding_idx")
        if padding_idx != -1:
            out = xp.where((flat == padding_idx)[:, None], xp.zeros_like(out), out)
        ctx.set_output("Out", xp.reshape(out, (*tuple(ids.shape[:-1]), w.shape[1])))


@register_fluid_kernel("flatten2", "CPU", ("float32", "float64", "int8", "int32", "int64",
                                           "uint8"))
class Flatten2Kernel(FluidKernel):
    """Out = X as 2-D: dims before ``axis`` x dims from ``axis``; XShape carries no data."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        axis = ctx.attr("axis")
        if not 0 <= axis <= x.ndim:
            raise InvalidArgument(f"flatten2: axis {axis} out of range [0, {x.ndim}].")
        outer = 1
        for d in x.shape[:axis]:
            outer *= d
        inner = 1
        for d in x.shape[axis:]:
            inner *= d
        ctx.set_output("Out", xp.reshape(x, (outer, inner)))
        ctx.set_output("XShape", xp.empty((0, *tuple(x.shape)), dtype=x.dtype))


# Paddle 2.6.2 runs the next two as STRUCTURE kernels: fluid kernels re-registered in the phi
# table and called with an ExecutionContext (reference §3.4; their recorded KernelSignature is
# empty).  Here they are what they are, fluid kernels.

@register_fluid_kernel("shuffle_channel", "CPU", ("float32", "float64"))
class ShuffleChannelKernel(FluidKernel):
    """Out = X [N, C, H, W] with its channels regrouped: [N, g, C/g, H, W] -> [N, C/g, g, H, W]."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        group = ctx.attr("group")
        if x.ndim != 4 or group <= 0 or x.shape[1] % group:
            raise InvalidArgument(f"shuffle_channel: X must be 4-D with channels divisible by "
                                  f"group={group}, got dims {list(x.shape)}.")
        n, c, h, w = x.shape
        y = xp.reshape(x, (n, group, c // group, h, w))
        y = xp.permute_dims(y, (0, 2, 1, 3, 4))
        ctx.set_output("Out", xp.reshape(y, (n, c, h, w)))


@register_fluid_kernel("fill_zeros_like", "CPU", ("float32", "float64", "int32", "int64",
                                                  "bool", "complex64", "complex128"))
class FillZerosLikeKernel(FluidKernel):
    """Out = zeros shaped and typed as X."""

    def compute(self, ctx) -> None:
        ctx.set_output("Out", ctx.xp.zeros_like(ctx.input_array("X")))
