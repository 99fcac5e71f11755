"""The fluid kernels of unique_with_counts."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.kernels.funcs.creation import unique_values

__all__: list[str] = []


@register_fluid_kernel("unique_with_counts", "CPU", ("float32", "float64", "int32", "int64"))
class UniqueWithCountsKernel(FluidKernel):
    """Unique values of a 1-D X in order of first appearance, each element's index into them,
    and their counts; the index outputs of the ``dtype`` attribute (int32 or int64)."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        if x.ndim != 1:
            raise InvalidArgument(f"unique_with_counts: Input(X) should be a vector, but "
                                  f"received shape {list(x.shape)}.")
        dtype = DataType.from_proto(int(ctx.attr("dtype")))
        if dtype not in (DataType.INT32, DataType.INT64):
            raise InvalidArgument(f"unique_with_counts: Index holds the wrong type, it holds "
                                  f"{dtype}, but desires to be int32 or int64.")
        out, _, inverse, counts = unique_values(ctx.dev_ctx, x, False, True, True, [], dtype, False)
        ctx.set_output("Out", out)
        ctx.set_output("Index", inverse)
        ctx.set_output("Count", counts)

