"""The fluid kernels of share_data."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []


@register_fluid_kernel("share_data", "CPU", ("bool", "float16", "float32", "float64", "int32",
                                             "int64", "int8", "uint8"))
class ShareDataKernel(FluidKernel):
    """Out holds X's data (and LoD)."""

    def compute(self, ctx) -> None:
        t = ctx.input("X")
        ctx.set_output("Out", ctx.input_array("X"), t.dtype, lod=t.lod)

