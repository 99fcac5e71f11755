"""The fluid kernels of uniform_random_batch_size_like."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.funcs.cpu_random import set_diagonal, uniform_values

__all__: list[str] = []


@register_fluid_kernel("uniform_random_batch_size_like", "CPU",
                       ("bfloat16", "float32", "float64"))
class UniformRandomBatchSizeLikeKernel(FluidKernel):
    """U(min, max) of ``shape`` whose dim ``output_dim_idx`` is Input's dim
    ``input_dim_idx`` (the batch size), Paddle's stream for a non-zero seed, then diag_*."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("Input")
        shape = [int(d) for d in ctx.attr("shape")]
        in_idx, out_idx = int(ctx.attr("input_dim_idx")), int(ctx.attr("output_dim_idx"))
        if not 0 <= in_idx < x.ndim:
            raise InvalidArgument(f"uniform_random_batch_size_like: input_dim_idx {in_idx} is "
                                  f"out of range for Input of rank {x.ndim}.")
        if not 0 <= out_idx < len(shape):
            raise InvalidArgument(f"uniform_random_batch_size_like: output_dim_idx {out_idx} "
                                  f"is out of range for shape {shape}.")
        shape[out_idx] = x.shape[in_idx]
        dtype = self.kernel_type.dtype
        out = uniform_values(ctx.dev_ctx, tuple(shape), dtype, float(ctx.attr("min")),
                              float(ctx.attr("max")), int(ctx.attr("seed")))
        out = set_diagonal(ctx.dev_ctx, out, int(ctx.attr("diag_num")), int(ctx.attr("diag_step")),
                    float(ctx.attr("diag_val")))
        ctx.set_output("Out", out, dtype)

