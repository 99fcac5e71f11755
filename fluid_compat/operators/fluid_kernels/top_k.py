"""The fluid kernels of top_k, top_k_grad."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import register
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.common.scalar import Scalar
from phi.kernels.topk import topk as _topk

__all__: list[str] = []


@register_fluid_kernel("top_k", "CPU", ("float32", "float64", "int32", "int64"))
class TopKV1Kernel(FluidKernel):
    """The k largest along the last axis, sorted (K tensor > attribute k)."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        k = ctx.attr("k")
        if ctx.has_input("K"):
            k = int(np.asarray(ctx.input("K").numpy()).reshape(-1)[0])
        values, indices = _topk(ctx.dev_ctx, x, Scalar(k), -1, True, True)
        ctx.set_output("Out", values)
        ctx.set_output("Indices", indices)


@register("top_k_grad", ("float32", "float64"))
class TopKGradKernel(FluidKernel):
    """X@GRAD = Out@GRAD put at the Indices of X's last dim, zeros elsewhere."""

    def compute(self, ctx) -> None:
        x, dout = ctx.input_array("X"), ctx.input_array("Out@GRAD")
        idx = ctx.input_array("Indices").astype(np.int64)
        g = np.zeros(x.shape, dout.dtype)
        np.put_along_axis(g, idx, dout, axis=-1)
        ctx.set_output("X@GRAD", g)

