"""The fluid kernels of get_tensor_from_selected_rows."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.core.selected_rows import is_selected_rows

__all__: list[str] = []


@register_fluid_kernel("get_tensor_from_selected_rows", "CPU",
                       ("float32", "float64", "int32", "int64"))
class GetTensorFromSelectedRowsKernel(FluidKernel):
    """Out = X's value (rows and height dropped)."""

    def compute(self, ctx) -> None:
        x = ctx.input("X")
        if not is_selected_rows(x):
            raise InvalidArgument("get_tensor_from_selected_rows: The input X's type should be "
                                  f"SelectedRows, but the received is {type(x).__name__}.")
        ctx.set_output("Out", x.data.copy(), x.dtype)

