"""The fluid kernels of fill_zeros_like, fill_zeros_like2."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []


@register_fluid_kernel("fill_zeros_like2", "CPU", ("bool", "float32", "float64", "int32",
                                                   "int64", "complex64", "complex128"))
class FillZerosLike2Kernel(FluidKernel):
    """Out = zeros shaped as X, of the ``dtype`` attribute (the expected kernel type's)."""

    def compute(self, ctx) -> None:
        dtype = self.kernel_type.dtype
        ctx.set_output("Out", ctx.dev_ctx.full(tuple(ctx.input("X").shape),
                                               ctx.dev_ctx.asarray(0, dtype), dtype), dtype)


@register_fluid_kernel("fill_zeros_like", "CPU", ("float32", "float64", "int32", "int64",
                                                  "bool", "complex64", "complex128"))
class FillZerosLikeKernel(FluidKernel):
    """Out = zeros shaped and typed as X."""

    def compute(self, ctx) -> None:
        ctx.set_output("Out", ctx.xp.zeros_like(ctx.input_array("X")))

