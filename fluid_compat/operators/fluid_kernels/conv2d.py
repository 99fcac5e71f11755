"""The fluid kernels of conv2d."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.funcs import (
    FLOATS,
    algorithm_paddings,
    back,
    four_paddings,
    nchw,
    trunc_div,
)
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


@register_fluid_kernel("conv2d", "CPU", FLOATS)
class Conv2DKernel(FluidKernel):
    """Output = Input (*) Filter: grouped, strided, dilated cross-correlation."""

    dtype_tied_inputs = ("Input", "Filter")

    def compute(self, ctx) -> None:
        xp = ctx.xp
        fmt = ctx.attr("data_format")
        x = nchw(xp, ctx.input_array("Input"), fmt)
        w = ctx.input_array("Filter")
        groups = ctx.attr("groups")
        strides = list(ctx.attr("strides"))
        dilations = list(ctx.attr("dilations"))
        n, c, h, wd = x.shape
        o, cg, kh, kw = w.shape
        if groups <= 0 or c != cg * groups or o % groups:
            raise InvalidArgument(
                f"conv2d: Input {list(x.shape)} (data_format {fmt}) and Filter {list(w.shape)}"
                f" do not fit groups={groups}."
            )
        algorithm = ctx.attr("padding_algorithm")
        pads = algorithm_paddings(four_paddings(ctx.attr("paddings"), "conv2d"), algorithm,
                                   (h, wd), strides, (kh, kw))
        if algorithm == "SAME":
            dilations = [1, 1]
        span_h = dilations[0] * (kh - 1) + 1
        span_w = dilations[1] * (kw - 1) + 1
        # C++ int division: an input smaller than the window still has one (partial) window
        ho = trunc_div(h + pads[0] + pads[1] - span_h, strides[0]) + 1
        wo = trunc_div(wd + pads[2] + pads[3] - span_w, strides[1]) + 1
        if ho < 0 or wo < 0:
            raise InvalidArgument(f"conv2d: the output size {[ho, wo]} is negative.")
        if ho == 0 or wo == 0:
            ctx.set_output("Output", back(xp, xp.zeros((n, o, ho, wo), x.dtype), fmt))
            return
        # taps past the input read zero: pad the trailing sides up to the last window
        bottom = max(pads[1], (ho - 1) * strides[0] + span_h - h - pads[0])
        right = max(pads[3], (wo - 1) * strides[1] + span_w - wd - pads[2])
        padded = xp.pad(x, ((0, 0), (0, 0), (pads[0], bottom), (pads[2], right)))
        win = xp.lib.stride_tricks.sliding_window_view(padded, (span_h, span_w), axis=(2, 3))
        win = win[:, :, ::strides[0], ::strides[1], ::dilations[0], ::dilations[1]]
        win = win[:, :, :ho, :wo]
        win = xp.reshape(win, (n, groups, cg, ho, wo, kh, kw))
        wg = xp.reshape(w, (groups, o // groups, cg, kh, kw))
        out = xp.einsum("ngchwij,gocij->ngohw", win, wg, optimize=True)
        ctx.set_output("Output", back(xp, xp.reshape(out, (n, o, ho, wo)), fmt))

