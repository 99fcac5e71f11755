"""Fluid (old-style) kernels of conv2d and pool2d, kept beside their phi kernels for comparison.

They are written from the legacy ops' definitions, independently of phi/kernels/conv.py and
pooling.py (own padding and size arithmetic, another formulation), so that comparing the two
means something:

* conv2d: explicit padding, numpy's ``sliding_window_view`` over the dilated window, then one
  ``einsum`` over (group, channel, kh, kw) (which contracts through BLAS).
* pool2d: explicit padding; the divisor of average pooling is itself pooled from masks (ones
  over the input, or over the input plus the leading padding on both sides for inclusive
  counting) instead of being computed from window bounds; adaptive pooling loops over the
  (few) output positions with slices.

Both reproduce Paddle 2.6.2's CPU results (see the phi modules for the rules).
"""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []

FLOATS = ("float32", "float64")
_NEG_FLT_MAX = -3.4028234663852886e38  # MaxPool's initial value, -FLT_MAX


def _trunc_div(a: int, b: int) -> int:
    """C++ ``a / b`` on ints (truncation toward zero)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _four_paddings(paddings, op: str) -> list[int]:
    pads = [int(p) for p in paddings]
    if len(pads) == 2:
        return [pads[0], pads[0], pads[1], pads[1]]
    if len(pads) == 4:
        return pads
    raise InvalidArgument(f"{op}: attribute paddings must hold 2 or 4 values, got {pads}.")


def _algorithm_paddings(pads, algorithm: str, sizes, strides, ksize) -> list[int]:
    if algorithm == "VALID":
        return [0, 0, 0, 0]
    if algorithm == "SAME":
        out = []
        for size, stride, k in zip(sizes, strides, ksize, strict=False):
            n_out = (size + stride - 1) // stride
            total = max(0, (n_out - 1) * stride + k - size)
            out += [total // 2, total - total // 2]
        return out
    return pads


def _nchw(xp, x, data_format: str):
    return xp.transpose(x, (0, 3, 1, 2)) if data_format == "NHWC" else x


def _back(xp, out, data_format: str):
    out = xp.transpose(out, (0, 2, 3, 1)) if data_format == "NHWC" else out
    return xp.ascontiguousarray(out)


@register_fluid_kernel("conv2d", "CPU", FLOATS)
class Conv2DKernel(FluidKernel):
    """Output = Input (*) Filter: grouped, strided, dilated cross-correlation."""

    dtype_tied_inputs = ("Input", "Filter")

    def compute(self, ctx) -> None:
        xp = ctx.xp
        fmt = ctx.attr("data_format")
        x = _nchw(xp, ctx.input_array("Input"), fmt)
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
        pads = _algorithm_paddings(_four_paddings(ctx.attr("paddings"), "conv2d"), algorithm,
                                   (h, wd), strides, (kh, kw))
        if algorithm == "SAME":
            dilations = [1, 1]
        span_h = dilations[0] * (kh - 1) + 1
        span_w = dilations[1] * (kw - 1) + 1
        # C++ int division: an input smaller than the window still has one (partial) window
        ho = _trunc_div(h + pads[0] + pads[1] - span_h, strides[0]) + 1
        wo = _trunc_div(wd + pads[2] + pads[3] - span_w, strides[1]) + 1
        if ho < 0 or wo < 0:
            raise InvalidArgument(f"conv2d: the output size {[ho, wo]} is negative.")
        if ho == 0 or wo == 0:
            ctx.set_output("Output", _back(xp, xp.zeros((n, o, ho, wo), x.dtype), fmt))
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
        ctx.set_output("Output", _back(xp, xp.reshape(out, (n, o, ho, wo)), fmt))


@register_fluid_kernel("pool2d", "CPU", FLOATS)
class Pool2DKernel(FluidKernel):
    """Out = max or average of X over 2-D windows (global, adaptive, ceil_mode, exclusive)."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        xp = ctx.xp
        fmt = ctx.attr("data_format")
        x = _nchw(xp, ctx.input_array("X"), fmt)
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
        ctx.set_output("Out", _back(xp, out, fmt))

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
            pads = _algorithm_paddings(_four_paddings(ctx.attr("paddings"), "pool2d"),
                                       ctx.attr("padding_algorithm"), (h, w), strides, ksize)
        ceil = strides[0] - 1, strides[1] - 1
        if not ctx.attr("ceil_mode"):
            ceil = 0, 0
        ho = _trunc_div(h + pads[0] + pads[1] - ksize[0] + ceil[0], strides[0]) + 1
        wo = _trunc_div(w + pads[2] + pads[3] - ksize[1] + ceil[1], strides[1]) + 1
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
