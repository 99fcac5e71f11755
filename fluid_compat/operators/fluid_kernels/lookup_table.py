"""The fluid kernels of lookup_table, lookup_table_grad."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.core.selected_rows import SelectedRows

__all__: list[str] = []


@register_fluid_kernel("lookup_table", "CPU", ("float32", "float64", "int8", "int16", "bfloat16"))
class LookupTableKernel(FluidKernel):
    """Rows of W picked by Ids (shape [..., 1]); padding_idx rows are zeros."""

    dtype_tied_inputs = ("W",)

    def compute(self, ctx) -> None:
        xp = ctx.xp
        w, ids = ctx.input_array("W"), ctx.input_array("Ids")
        if ids.ndim == 0 or ids.shape[-1] != 1:
            raise InvalidArgument(f"lookup_table: Ids must end with a dimension of 1, got "
                                  f"{list(ids.shape)}.")
        flat = xp.reshape(ids, (-1,)).astype("int64")
        if flat.size and (int(flat.min()) < 0 or int(flat.max()) >= w.shape[0]):
            bad = [int(i) for i in flat if i < 0 or i >= w.shape[0]][:3]
            raise InvalidArgument(f"lookup_table: Ids {bad} out of range [0, {w.shape[0]}).")
        out = w[flat]
        padding_idx = ctx.attr("padding_idx")
        if padding_idx != -1:
            out = xp.where((flat == padding_idx)[:, None], xp.zeros_like(out), out)
        ctx.set_output("Out", xp.reshape(out, (*tuple(ids.shape[:-1]), w.shape[1])))


def _stage(ctx, slot: str, value) -> None:
    """Stage a SelectedRows output (ExecutionContext.set_output makes DenseTensors)."""
    n = len(ctx.op.outputs.get(slot, ()))
    if n:
        ctx.staged.setdefault(slot, [None] * n)[0] = value


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

