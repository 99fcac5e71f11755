"""The fluid kernels of mul."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.funcs import FLOATS
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


def _flatten_to_2d(xp, a, num_col_dims: int, what: str):
    if not 0 < num_col_dims <= a.ndim:
        raise InvalidArgument(f"mul: {what}_num_col_dims {num_col_dims} out of range for a "
                              f"{a.ndim}-D input.")
    rows = 1
    for d in a.shape[:num_col_dims]:
        rows *= d
    return xp.reshape(a, (rows, -1) if rows else (0, max(1, int(a.size // max(rows, 1)))))


@register_fluid_kernel("mul", "CPU", FLOATS)
class MulKernel(FluidKernel):
    dtype_tied_inputs = ("X", "Y")

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x, y = ctx.input_array("X"), ctx.input_array("Y")
        xnc, ync = ctx.attr("x_num_col_dims"), ctx.attr("y_num_col_dims")
        x2 = _flatten_to_2d(xp, x, xnc, "x")
        y2 = _flatten_to_2d(xp, y, ync, "y")
        if x2.shape[1] != y2.shape[0]:
            raise InvalidArgument(f"mul: flattened X{list(x2.shape)} and Y{list(y2.shape)} do "
                                  "not multiply.")
        out = xp.matmul(x2, y2)
        ctx.set_output("Out", xp.reshape(out, tuple(x.shape[:xnc]) + tuple(y.shape[ync:])))

