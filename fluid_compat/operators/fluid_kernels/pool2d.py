"""The fluid kernels of pool2d."""

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


_NEG_FLT_MAX = -3.4028234663852886e38  # MaxPool's initial value, -FLT_MAX


@register_fluid_kernel("pool2d", "CPU", FLOATS)
class Pool2DKernel(FluidKernel):
    """Out = max or average of X over 2-D windows (global, adaptive, ceil_mode, exclusive)."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        xp = ctx.xp
        fmt = ctx.attr("data_format")
        x = nchw(xp, ctx.input_array("X"), fmt)
        kind = ctx.attr("pooling_type")
        if kind not in ("max", "avg"):
            raise InvalidArgument(f"pool2d: pooling_type must be max or avg, got {kind!r}.")
        h, w = x.shape[2:]
        ksize = [int(k) for k in ctx.attr("ksize")]
        if ctx.attr("global_pooling"):
            ksize = [h, w]
        if ctx.attr("adaptive"):
            out = self._adaptive(xp, x, ksize, kind)
        else:
            out = self._windows(ctx, xp, x, ksize, kind)
        ctx.set_output("Out", back(xp, out, fmt))

    @staticmethod
    def _adaptive(xp, x, out_size, kind: str):
        n, c, h, w = x.shape
        ho, wo = out_size
        out = xp.empty((n, c, ho, wo), dtype=x.dtype)
        for i in range(ho):  # adaptive outputs are small: one slice per output position
            h0, h1 = (i * h) // ho, -((-(i + 1) * h) // ho)
            for j in range(wo):
                w0, w1 = (j * w) // wo, -((-(j + 1) * w) // wo)
                part = x[:, :, h0:h1, w0:w1]
                if kind == "max":
                    out[:, :, i, j] = xp.maximum(xp.max(part, axis=(2, 3)), _NEG_FLT_MAX)
                else:
                    size = x.dtype.type((h1 - h0) * (w1 - w0))
                    out[:, :, i, j] = xp.sum(part, axis=(2, 3)) / size
        return out

    @staticmethod
    def _windows(ctx, xp, x, ksize, kind: str):
        h, w = x.shape[2:]
        strides = [int(s) for s in ctx.attr("strides")]
        pads = [0, 0, 0, 0]
        if not ctx.attr("global_pooling"):
            pads = algorithm_paddings(four_paddings(ctx.attr("paddings"), "pool2d"),
                                       ctx.attr("padding_algorithm"), (h, w), strides, ksize)
        ceil = strides[0] - 1, strides[1] - 1
        if not ctx.attr("ceil_mode"):
            ceil = 0, 0
        ho = trunc_div(h + pads[0] + pads[1] - ksize[0] + ceil[0], strides[0]) + 1
        wo = trunc_div(w + pads[2] + pads[3] - ksize[1] + ceil[1], strides[1]) + 1
        if ho <= 0 or wo <= 0:
            raise InvalidArgument(f"pool2d: output size {[ho, wo]} must be positive.")
        # Paddle's CPU functor only uses the leading paddings (top, left); pad enough after
        # the input for the last window, whatever the trailing paddings say
        top, left = pads[0], pads[2]
        bottom = max(0, (ho - 1) * strides[0] + ksize[0] - h - top)
        right = max(0, (wo - 1) * strides[1] + ksize[1] - w - left)
        spec = ((top, bottom), (left, right))
        padded = xp.pad(x, ((0, 0), (0, 0), *spec))
        inside = xp.pad(xp.ones((h, w), dtype=x.dtype), spec)
        win = xp.lib.stride_tricks.sliding_window_view(padded, ksize, axis=(2, 3))
        win = win[:, :, ::strides[0], ::strides[1]][:, :, :ho, :wo]

        def pooled_mask(mask):
            m = xp.lib.stride_tricks.sliding_window_view(mask, ksize)
            return m[::strides[0], ::strides[1]][:ho, :wo]

        valid = pooled_mask(inside)
        if kind == "max":
            masked = xp.where(valid != 0, win, -xp.inf)
            return xp.maximum(xp.max(masked, axis=(4, 5)), _NEG_FLT_MAX)
        total = xp.sum(win, axis=(4, 5))
        if ctx.attr("exclusive"):
            count = xp.sum(valid, axis=(2, 3))
        else:  # Paddle's pool_size: per axis min(start + k, size + lead) - start, where a
            # window wholly past the widened input counts negative (its 0 / -n is -0.0)
            def axis_count(size, k, s, lead, n):
                start = xp.arange(n) * s - lead
                return xp.minimum(start + k, size + lead) - start

            count = xp.asarray((axis_count(h, ksize[0], strides[0], top, ho)[:, None]
                                * axis_count(w, ksize[1], strides[1], left, wo)[None, :])
                               .astype(x.dtype))
        with xp.errstate(divide="ignore", invalid="ignore"):  # empty windows: 0/0 as Paddle
            return total / count

