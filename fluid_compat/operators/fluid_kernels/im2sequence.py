"""The fluid kernels of im2sequence, im2sequence_grad."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


@register_fluid_kernel("im2sequence_grad", "CPU", ("float32",))
class Im2SequenceGradKernel(FluidKernel):
    """Each Out@GRAD row (one patch of C * kh * kw values) added back onto the image positions
    it was read from; padding positions dropped."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        kh, kw = (int(v) for v in ctx.attr("kernels"))
        sh, sw = (int(v) for v in ctx.attr("strides"))
        up, left, down, right = (int(v) for v in ctx.attr("paddings"))
        n, c, h, w = x.shape
        oh, ow = (h + up + down - kh) // sh + 1, (w + left + right - kw) // sw + 1
        dout = ctx.input_array("Out@GRAD").reshape(n, oh, ow, c, kh, kw)
        padded = np.zeros((n, c, h + up + down, w + left + right), x.dtype)
        for i in range(oh):
            for j in range(ow):
                padded[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw] += dout[:, i, j]
        ctx.set_output("X@GRAD", np.ascontiguousarray(padded[:, :, up:up + h, left:left + w]))


@register_fluid_kernel("im2sequence", "CPU", ("float32",))
class Im2SequenceKernel(FluidKernel):
    """Image patches as sequences: one row (C * kh * kw values) per output position, one
    sequence of out_h * out_w rows per image (paddings [up, left, down, right])."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        if ctx.has_input("Y"):
            raise InvalidArgument("im2sequence: the real-size input Y is not supported "
                                  "(Paddle 2.6.2 finds no kernel for it on CPU either).")
        kh, kw = (int(v) for v in ctx.attr("kernels"))
        sh, sw = (int(v) for v in ctx.attr("strides"))
        up, left, down, right = (int(v) for v in ctx.attr("paddings"))
        n, c, h, w = x.shape
        oh, ow = (h + up + down - kh) // sh + 1, (w + left + right - kw) // sw + 1
        if oh <= 0 or ow <= 0:
            raise InvalidArgument(f"im2sequence: the output size ({oh}, {ow}) from input "
                                  f"({h}, {w}), kernels {[kh, kw]} must be positive.")
        padded = np.pad(x, ((0, 0), (0, 0), (up, down), (left, right)))
        out = np.empty((n, oh, ow, c, kh, kw), x.dtype)
        for i in range(oh):
            for j in range(ow):
                out[:, i, j] = padded[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw]
        lod = (tuple(range(0, n * oh * ow + 1, oh * ow)),)
        ctx.set_output("Out", out.reshape(n * oh * ow, c * kh * kw), lod=lod)

