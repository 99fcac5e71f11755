"""The fluid kernels of cvm, cvm_grad."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import FLOATS, rank
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


@register_fluid_kernel("cvm_grad", "CPU", FLOATS)
class CvmGradKernel(FluidKernel):
    """dX = dY in X's columns 2.. (use_cvm: Y keeps all columns) and the CVM row of the
    row's sequence (LoD level 0 of X@GRAD, i.e. of X; one CVM row per row without a LoD) in
    columns 0 and 1."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        dy = ctx.input_array("Y@GRAD")
        cvm = ctx.input_array("CVM").reshape(-1, 2)
        offset = 0 if ctx.attr("use_cvm") else 2
        dx = np.empty_like(x)
        dx[:, offset:] = dy.reshape(x.shape[0], -1)[:, :x.shape[1] - offset]
        lod = ctx.input("X").lod
        if lod:
            rows = np.repeat(np.arange(len(lod[0]) - 1), np.diff(np.asarray(lod[0], np.int64)))
        else:
            rows = np.arange(x.shape[0])
        dx[:, :2] = cvm[rows]
        ctx.set_output("X@GRAD", dx, lod=lod)


@register_fluid_kernel("cvm", "CPU", ("float32", "float64"))
class CvmKernel(FluidKernel):
    """Continuous value model: use_cvm keeps the width with log(show + 1) and
    log(click + 1) - log(show + 1) in the first two columns, else drops those two columns."""

    def compute(self, ctx) -> None:
        rank(ctx, "X", (2,), " [N, D]")
        x = ctx.input_array("X")
        if x.shape[1] < 2:
            raise InvalidArgument(f"cvm: X needs at least the 2 show / click columns, got width "
                                  f"{x.shape[1]}.")
        if not ctx.attr("use_cvm"):
            ctx.set_output("Y", np.ascontiguousarray(x[:, 2:]))
            return
        y = x.copy()
        one = x.dtype.type(1)
        y[:, 0] = np.log(x[:, 0] + one)
        y[:, 1] = np.log(x[:, 1] + one) - y[:, 0]
        ctx.set_output("Y", y)

