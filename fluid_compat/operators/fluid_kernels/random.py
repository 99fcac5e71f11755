"""The random ops' hooks (expected kernel type from the ``dtype`` attribute, as their
GetExpectedKernelType reads it) and the fluid kernels of the two Paddle 2.6.2 runs as STRUCTURE
kernels: uniform_random_batch_size_like (paddle/fluid/operators/uniform_random_batch_size_like_
op.cc) and sampling_id (paddle/fluid/operators/sampling_id_op.h)."""

from __future__ import annotations

import numpy as np
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.kernels.funcs.cpu_random import engine_for, uniform_real
from phi.kernels.uniform import _diag, _uniform_values

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.expected_kernel import expected_from_attr, expected_from_var
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []

for _op in ("uniform_random", "gaussian_random", "truncated_gaussian_random", "randint",
            "randperm", "uniform_random_batch_size_like"):
    op_hooks(_op, get_expected_kernel_type=expected_from_attr("dtype"))
op_hooks("sampling_id", get_expected_kernel_type=expected_from_var("X"))


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
        out = _uniform_values(ctx.dev_ctx, tuple(shape), dtype, float(ctx.attr("min")),
                              float(ctx.attr("max")), int(ctx.attr("seed")))
        out = _diag(ctx.dev_ctx, out, int(ctx.attr("diag_num")), int(ctx.attr("diag_step")),
                    float(ctx.attr("diag_val")))
        ctx.set_output("Out", out, dtype)


@register_fluid_kernel("sampling_id", "CPU", ("float32", "float64"))
class SamplingIdKernel(FluidKernel):
    """One category per row of X: r ~ U(min, max), the first column where the running
    difference r - x[0] - x[1] - ... drops below 0, the last column when none does."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        if x.ndim != 2:
            raise InvalidArgument(f"sampling_id: Input(X) must be 2-D, got dims "
                                  f"{list(x.shape)}.")
        batch, width = x.shape
        r = uniform_real(engine_for(int(ctx.attr("seed"))), batch, float(ctx.attr("min")),
                         float(ctx.attr("max")), x.dtype)
        left = r[:, None] - np.cumsum(x, axis=1, dtype=x.dtype)
        below = left < 0
        ids = np.where(below.any(axis=1), below.argmax(axis=1), width - 1).astype(np.int64)
        ctx.set_output("Out", ids, DataType.INT64)
