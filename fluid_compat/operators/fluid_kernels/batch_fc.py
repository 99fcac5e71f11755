"""The fluid kernels of batch_fc."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.funcs import GpuOnly
from fluid_compat.operators.fluid_kernels.registry import register_fluid_kernel

__all__: list[str] = []


@register_fluid_kernel("batch_fc", "CPU", ("float32", "float64"))
class BatchFcKernel(GpuOnly):
    """Refused on CPU, as Paddle does."""

    message = "BatchFC only supports GPU now."

