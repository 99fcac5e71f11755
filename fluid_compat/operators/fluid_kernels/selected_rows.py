"""Fluid kernels of SelectedRows ops (issue 13, item 4): ``get_tensor_from_selected_rows`` (a
structure kernel in Paddle 2.6.2: empty KernelSignature) and ``lookup_table_grad`` (the fluid
LookupTableGradKernel: a SelectedRows W@GRAD when ``is_sparse``, else a dense one)."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.core.selected_rows import SelectedRows, is_selected_rows

__all__: list[str] = []


def _stage(ctx, slot: str, value) -> None:
    """Stage a SelectedRows output (ExecutionContext.set_output makes DenseTensors)."""
    n = len(ctx.op.outputs.get(slot, ()))
    if n:
        ctx.staged.setdefault(slot, [None] * n)[0] = value


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


@register_fluid_kernel("lookup_table_grad", "CPU", ("float32", "float64", "bfloat16"))
class LookupTableGradKernel(FluidKernel):
    """W@GRAD of lookup_table (Ids [..., 1]): is_sparse: SelectedRows rows = Ids as given,
    value = Out@GRAD rows; else Out@GRAD rows added into zeros (padding_idx rows skipped)."""

    def compute(self, ctx) -> None:
        w, ids = ctx.input("W"), ctx.input_array("Ids")
        og = ctx.input_array("Out@GRAD")
        flat = np.reshape(ids, (-1,)).astype(np.int64)
        height = w.dims[0]
        width = int(np.prod(w.dims[1:], dtype=np.int64))
        value = np.reshape(og, (flat.size, width))
        if ctx.attr("is_sparse"):
            _stage(ctx, "W@GRAD", SelectedRows(flat.tolist(), height, value.copy(),
                                               place=ctx.place))
            return
        if flat.size and (int(flat.min()) < 0 or int(flat.max()) >= height):
            raise InvalidArgument(f"lookup_table_grad: Ids out of range [0, {height}).")
        out = np.zeros((height, width), dtype=value.dtype)
        padding_idx = ctx.attr("padding_idx")
        keep = flat != padding_idx
        np.add.at(out, flat[keep], value[keep])
        ctx.set_output("W@GRAD", out.reshape(tuple(w.dims)))
