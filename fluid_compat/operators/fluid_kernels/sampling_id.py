"""The fluid kernels of sampling_id."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.kernels.funcs.cpu_random import engine_for, uniform_real

__all__: list[str] = []


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

