"""The fluid kernels of data_norm, data_norm_grad."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.funcs import FLOATS, grad_out
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.funcs import quiet

__all__: list[str] = []


@register_fluid_kernel("data_norm_grad", "CPU", ("float32", "float64"))
class DataNormGradKernel(FluidKernel):
    """dX = dY * Scales (* scale_w with enable_scale_and_shift); the statistics' "gradients"
    are the batch's contributions: BatchSize N, BatchSum sum(X), BatchSquareSum sum((X -
    Means)^2) + N * epsilon; with slot_dim > 0 a sample counts in a slot only when the slot's
    show (its first value) is not within 1e-7 of 0.  scale_w@GRAD = sum(dY * (X - Means) *
    Scales), bias@GRAD = sum(dY)."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        dy = ctx.input_array("Y@GRAD")
        means = ctx.input_array("Means").reshape(-1)
        scales = ctx.input_array("Scales").reshape(-1)
        t = x.dtype.type
        n, c = x.shape
        shift = ctx.attr("enable_scale_and_shift")
        slot_dim = ctx.attr("slot_dim")
        if grad_out(ctx, "X@GRAD"):
            w = ctx.input_array("scale_w").reshape(-1) if shift else t(1)
            ctx.set_output("X@GRAD", xp.asarray(dy * scales * w, dtype=x.dtype))
        if slot_dim > 0 and n > 0:
            shows = x[:, ::slot_dim]
            keep = ~((shows > t(-1e-7)) & (shows < t(1e-7)))
            keep = xp.repeat(keep, slot_dim, axis=1)[:, :c].astype(x.dtype)
        else:
            keep = xp.ones_like(x)
        size = xp.sum(keep, axis=0)
        ctx.set_output("BatchSize@GRAD", size.astype(x.dtype))
        ctx.set_output("BatchSum@GRAD", xp.sum(x * keep, axis=0).astype(x.dtype))
        square = xp.sum((x - means) ** 2 * keep, axis=0) + size * t(ctx.attr("epsilon"))
        ctx.set_output("BatchSquareSum@GRAD", square.astype(x.dtype))
        if shift and grad_out(ctx, "scale_w@GRAD"):
            ctx.set_output("scale_w@GRAD",
                           xp.sum(dy * (x - means) * scales, axis=0).astype(x.dtype))
        if shift and grad_out(ctx, "bias@GRAD"):
            ctx.set_output("bias@GRAD", xp.sum(dy, axis=0).astype(x.dtype))


@register_fluid_kernel("data_norm", "CPU", FLOATS)
class DataNormKernel(FluidKernel):
    """Means = BatchSum / BatchSize, Scales = sqrt(BatchSize / BatchSquareSum), Y = (X - Means)
    * Scales per column of the 2-D X (then * scale_w + bias with ``enable_scale_and_shift``);
    with ``slot_dim`` > 0 a slot whose first value (the show count) is within 1e-7 of 0 gives
    zeros."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        if x.ndim != 2:
            raise InvalidArgument("data_norm: The Input dim size should be 2, but received "
                                  f"{list(x.shape)}.")
        n, c = x.shape
        size, total, square = (ctx.input_array(s).reshape(-1) for s in
                               ("BatchSize", "BatchSum", "BatchSquareSum"))
        if min(size.size, total.size, square.size) < c:
            raise InvalidArgument(f"data_norm: BatchSize, BatchSum and BatchSquareSum must hold "
                                  f"C = {c} values, but received {size.size}, {total.size} and "
                                  f"{square.size}.")
        size, total, square = size[:c], total[:c], square[:c]
        slot_dim = ctx.attr("slot_dim")
        shift = ctx.attr("enable_scale_and_shift")
        t = x.dtype.type
        with quiet(xp):
            means = total / size
            scales = xp.sqrt(size / square)
            if shift:
                w = ctx.input_array("scale_w").reshape(-1)
                b = ctx.input_array("bias").reshape(-1)
            if shift and slot_dim <= 0:
                # Eigen: x * (scales * w) + (b - means * scales * w)
                y = x * (scales * w) + (b - means * scales * w)
            else:
                y = (x - means) * scales
                if shift:
                    y = y * w + b
            if slot_dim > 0 and n > 0:
                shows = x[:, ::slot_dim]
                zero = (shows > t(-1e-7)) & (shows < t(1e-7))
                mask = xp.repeat(zero, slot_dim, axis=1)[:, :c]
                y = xp.where(mask, t(0), y)
        ctx.set_output("Y", y)
        ctx.set_output("Means", means)
        ctx.set_output("Scales", scales)

