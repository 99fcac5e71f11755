"""The fluid kernels of seed."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.common.data_type import DataType
from phi.kernels.funcs.cpu_random import engine_for

__all__: list[str] = []


@register_fluid_kernel("seed", "CPU", ("int32",))
class SeedKernel(FluidKernel):
    """Out = [seed] (int32), a random one when ``seed`` is 0."""

    def compute(self, ctx) -> None:
        seed = int(ctx.attr("seed"))
        if seed == 0:
            seed = int(engine_for(0).draw(1)[0] % np.uint64(2**31 - 1)) or 1
        ctx.set_output("Out", np.array([seed], np.int32), DataType.INT32)

