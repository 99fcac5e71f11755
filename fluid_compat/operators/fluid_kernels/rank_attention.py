"""The fluid kernels of rank_attention."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.funcs import GpuOnly
from fluid_compat.operators.fluid_kernels.registry import register_fluid_kernel

__all__: list[str] = []


@register_fluid_kernel("rank_attention", "CPU", ("float32", "float64"))
class RankAttentionKernel(GpuOnly):
    """Refused on CPU, as Paddle does."""

    message = "Rank Attention only supports GPU now."

