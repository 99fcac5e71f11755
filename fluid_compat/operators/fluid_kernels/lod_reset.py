"""The fluid kernels of lod_reset, lod_reset_grad."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import NUM
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.funcs import owned

__all__: list[str] = []


@register_fluid_kernel("lod_reset_grad", "CPU", ("float16", *NUM))
class LodResetGradKernel(FluidKernel):
    """Out@GRAD's values (X's LoD comes back by ShareLoD)."""

    def compute(self, ctx) -> None:
        ctx.set_output("X@GRAD", np.array(ctx.input_array("Out@GRAD")))


@register_fluid_kernel("lod_reset", "CPU", ("float16", "float32", "float64", "int32", "int64"))
class LodResetKernel(FluidKernel):
    """Out = X's data with a new LoD: Y's whole LoD when Y has one, else one level of offsets
    from Y's int32 data or from target_lod, appended to X's LoD when ``append``."""

    def compute(self, ctx) -> None:
        x, y = ctx.input("X"), ctx.input("Y")
        target = list(ctx.attr("target_lod"))
        if y is None and not target:
            raise InvalidArgument(
                "lod_reset: If Input(Y) is not provided, the output's LoD should be specified "
                "by attribute 'target_lod'. But the size of 'target_lod' is 0.")
        data = ctx.input_array("X")
        out = owned(ctx.xp, data)
        if y is not None and y.lod:
            ctx.set_output("Out", out, lod=y.lod)
            return
        if y is not None:
            if str(y.data.dtype) != "int32":
                raise InvalidArgument(f"lod_reset: Input(Y) holds the target LoD as int32 "
                                      f"offsets, got {y.data.dtype}.")
            target = [int(v) for v in ctx.xp.reshape(y.data, (-1,)).tolist()]
        rows = data.shape[0] if data.ndim else 1
        if len(target) <= 1:
            raise InvalidArgument(f"lod_reset: The size of target LoD should be greater than 1. "
                                  f"But received the size of target LoD is {len(target)}.")
        if target[0] != 0:
            raise InvalidArgument(f"lod_reset: Target LoD should be a vector starting from 0. "
                                  f"But target LoD starts from {target[0]}.")
        if target[-1] != rows:
            raise InvalidArgument(
                f"lod_reset: The last value of Target LoD should be equal to the first dimension "
                f"of Input(X). But received the last value of Target LoD is {target[-1]}, the "
                f"first dimension of Input(X) is {rows}.")
        if any(b < a for a, b in pairwise(target)):
            raise InvalidArgument(f"lod_reset: Target LoD should be an ascending vector, got "
                                  f"{target}.")
        lod = (*x.lod, tuple(target)) if ctx.attr("append") else (tuple(target),)
        ctx.set_output("Out", out, lod=lod)

