"""The fluid kernels of unzip."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import Unimplemented

__all__: list[str] = []


@register_fluid_kernel("unzip", "CPU", ("int64", "complex64", "complex128"))
class UnzipKernel(FluidKernel):
    """Paddle 2.6.2's CPU unzip kernel is a stub: it raises Unimplemented."""

    def compute(self, ctx) -> None:
        raise Unimplemented("unzip is unimplemented on CPU (Paddle 2.6.2's CPU kernel of "
                            "`unzip` raises the same).")

