"""The nn grad ops of helper gradnn (issue 13) that Paddle 2.6.2 runs with fluid kernels
(STRUCTURE kernels or fluid-only: affine_channel, lrn, data_norm, the v1 interps,
shuffle_channel, spp, deformable_psroi_pooling), and the hooks of the phi ones: which gradient
keeps which input's LoD (Paddle's grad InferMetas: share_meta(x) copies x's LoD onto dx; the
lodmeta grad cases are the evidence)."""

from __future__ import annotations

import math

import numpy as np

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.fluid_kernels.detection2 import (
    deformable_psroi_bins,
    deformable_psroi_inputs,
)
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from fluid_compat.operators.fluid_kernels.window import spp_level
from phi.kernels.pool import pool_window_grad
from phi.kernels.interpolate import interp_grad_compute

__all__: list[str] = []

SHARE_LOD = {
    **{op: {"Input@GRAD": "Input"} for op in (
        "conv2d_grad", "depthwise_conv2d_grad", "conv3d_grad", "conv2d_transpose_grad",
        "depthwise_conv2d_transpose_grad", "conv3d_transpose_grad")},
    **{op: {"X@GRAD": "X"} for op in (
        "pool2d_grad", "pool3d_grad", "max_pool2d_with_index_grad",
        "max_pool3d_with_index_grad", "group_norm_grad", "layer_norm_grad", "maxout_grad")},
    "temporal_shift_grad": {"X@GRAD": "Out@GRAD"},
}

for _op, _pairs in SHARE_LOD.items():
    op_hooks(_op, share_lod=_pairs)


def _grad_out(ctx, slot: str) -> bool:
    """Whether the op asks for gradient ``slot`` (not absent, not @EMPTY@)."""
    names = ctx.op.outputs.get(slot, ())
    return bool(names) and names[0] != "@EMPTY@"


@register_fluid_kernel("affine_channel_grad", "CPU", ("float32", "float64"))
class AffineChannelGradKernel(FluidKernel):
    """dX = dOut * Scale, dScale = sum(dOut * X), dBias = sum(dOut), per channel (NCHW: dim 1;
    any other layout: the last dim, as the forward kernel)."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        dout = ctx.input_array("Out@GRAD")
        axis = 1 if ctx.attr("data_layout") == "NCHW" else dout.ndim - 1
        view = [1] * dout.ndim
        view[axis] = dout.shape[axis]
        rest = tuple(a for a in range(dout.ndim) if a != axis)
        scale = ctx.input_array("Scale")
        if _grad_out(ctx, "X@GRAD"):
            ctx.set_output("X@GRAD", xp.asarray(dout * xp.reshape(scale, view), dout.dtype))
        if _grad_out(ctx, "Scale@GRAD"):
            ctx.set_output("Scale@GRAD",
                           xp.sum(dout * ctx.input_array("X"), axis=rest).astype(dout.dtype))
        if _grad_out(ctx, "Bias@GRAD"):
            ctx.set_output("Bias@GRAD", xp.sum(dout, axis=rest).astype(dout.dtype))


@register_fluid_kernel("lrn_grad", "CPU", ("float32",))
class LrnGradKernel(FluidKernel):
    """LRNGradFunctor: dX[c] = MidOut[c]^-beta * dOut[c] + sum over the n channels c' centred
    on c of (-2 alpha beta) * dOut[c'] * Out[c'] * X[c] / MidOut[c']."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        nhwc = ctx.attr("data_format") == "NHWC"
        arrays = [ctx.input_array(s) for s in ("X", "Out", "MidOut", "Out@GRAD")]
        if nhwc:
            arrays = [xp.transpose(a, (0, 3, 1, 2)) for a in arrays]
        x, out, mid, dout = arrays
        t = x.dtype.type
        n = ctx.attr("n")
        ratio = t(-2) * t(ctx.attr("alpha")) * t(ctx.attr("beta"))
        channels = x.shape[1]
        with xp.errstate(all="ignore"):
            dx = xp.power(mid, -t(ctx.attr("beta"))) * dout
            term = dout * out / mid  # [N, C, H, W], summed over each channel's window
            start = -(n - 1) // 2
            for c in range(channels):
                lo, hi = max(0, c + start), min(channels, c + start + n)
                dx[:, c] += ratio * xp.sum(term[:, lo:hi], axis=1) * x[:, c]
        if nhwc:
            dx = xp.transpose(dx, (0, 2, 3, 1))
        ctx.set_output("X@GRAD", xp.ascontiguousarray(dx))


@register_fluid_kernel("data_norm_grad", "CPU", ("float32", "float64"))
class DataNormGradKernel(FluidKernel):
    """dX = dY * Scales (* scale_w with enable_scale_and_shift); the statistics' "gradients"
    are the batch's contributions: BatchSize N, BatchSum sum(X), BatchSquareSum sum((X -
    Means)^2) + N * epsilon; with slot_dim > 0 a sample counts in a slot only when the slot's
    show (its first value) is not within 1e-7 of 0.  scale_w@GRAD = sum(dY * (X - Means) *
    Scales), bias@GRAD = sum(dY)."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        dy = ctx.input_array("Y@GRAD")
        means = ctx.input_array("Means").reshape(-1)
        scales = ctx.input_array("Scales").reshape(-1)
        t = x.dtype.type
        n, c = x.shape
        shift = ctx.attr("enable_scale_and_shift")
        slot_dim = ctx.attr("slot_dim")
        if _grad_out(ctx, "X@GRAD"):
            w = ctx.input_array("scale_w").reshape(-1) if shift else t(1)
            ctx.set_output("X@GRAD", xp.asarray(dy * scales * w, dtype=x.dtype))
        if slot_dim > 0 and n > 0:
            shows = x[:, ::slot_dim]
            keep = ~((shows > t(-1e-7)) & (shows < t(1e-7)))
            keep = xp.repeat(keep, slot_dim, axis=1)[:, :c].astype(x.dtype)
        else:
            keep = xp.ones_like(x)
        size = xp.sum(keep, axis=0)
        ctx.set_output("BatchSize@GRAD", size.astype(x.dtype))
        ctx.set_output("BatchSum@GRAD", xp.sum(x * keep, axis=0).astype(x.dtype))
        square = xp.sum((x - means) ** 2 * keep, axis=0) + size * t(ctx.attr("epsilon"))
        ctx.set_output("BatchSquareSum@GRAD", square.astype(x.dtype))
        if shift and _grad_out(ctx, "scale_w@GRAD"):
            ctx.set_output("scale_w@GRAD",
                           xp.sum(dy * (x - means) * scales, axis=0).astype(x.dtype))
        if shift and _grad_out(ctx, "bias@GRAD"):
            ctx.set_output("bias@GRAD", xp.sum(dy, axis=0).astype(x.dtype))


@register_fluid_kernel("nearest_interp_grad", "CPU", ("float32", "float64"))
@register_fluid_kernel("bilinear_interp_grad", "CPU", ("float32", "float64"))
@register_fluid_kernel("linear_interp_grad", "CPU", ("float32", "float64"))
@register_fluid_kernel("trilinear_interp_grad", "CPU", ("float32", "float64"))
@register_fluid_kernel("bicubic_interp_grad", "CPU", ("float32", "float64"))
class InterpV1GradKernel(FluidKernel):
    """The v1 interp grad kernels: the method interp_method names, ratios from the sizes only
    (as the v1 forward), the output sizes Out@GRAD's."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        dout = ctx.input_array("Out@GRAD")
        dx = interp_grad_compute(ctx.dev_ctx, x, None, [], None, dout, ctx.attr("data_layout"),
                                 [], [], ctx.attr("interp_method"), ctx.attr("align_corners"),
                                 ctx.attr("align_mode"), v1=True)
        ctx.set_output("X@GRAD", dx)


@register_fluid_kernel("shuffle_channel_grad", "CPU", ("float32", "float64"))
class ShuffleChannelGradKernel(FluidKernel):
    """The forward's own shuffle applied to the gradient ([g, C/g] -> [C/g, g]), as Paddle's
    grad kernel does: the inverse only when g * g == C (shuffle_channel_g2 is the evidence)."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        dout = ctx.input_array("Out@GRAD")
        n, c = dout.shape[:2]
        g = ctx.attr("group")
        t = xp.reshape(dout, (n, g, c // g, *dout.shape[2:]))
        dx = xp.reshape(xp.swapaxes(t, 1, 2), dout.shape)
        ctx.set_output("X@GRAD", xp.ascontiguousarray(dx))


@register_fluid_kernel("spp_grad", "CPU", ("float32", "float64"))
class SppGradKernel(FluidKernel):
    """Per pyramid level, the pooling gradient of its slice of Out (max: the first maximum of
    each window; avg: exclusive), summed over the levels."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        out = ctx.input_array("Out")
        dout = ctx.input_array("Out@GRAD")
        kind = ctx.attr("pooling_type")
        n, c, h, w = x.shape
        dx = xp.zeros_like(x)
        offset = 0
        for p in range(ctx.attr("pyramid_height")):
            bins = 2 ** p
            (kh, ph), (kw, pw) = spp_level(h, bins), spp_level(w, bins)
            width = c * bins * bins
            shape = (n, c, bins, bins)
            level = [xp.reshape(a[:, offset:offset + width], shape) for a in (out, dout)]
            dx += pool_window_grad(xp, x, level[0], level[1], (kh, kw), (kh, kw), (ph, pw),
                                   kind, True)
            offset += width
        ctx.set_output("X@GRAD", dx)


@register_fluid_kernel("deformable_psroi_pooling_grad", "CPU", ("float32", "float64"))
class DeformablePsroiPoolingGradKernel(FluidKernel):
    """Each bin's gradient / TopCount spread over its samples' bilinear corners (floor / ceil,
    the clipped position); dTrans from the samples' slopes times trans_std and the RoI size
    (DeformablePSROIPoolBackwardAccCPUKernel: the clip is not differentiated)."""

    def compute(self, ctx) -> None:
        x, rois, ids, trans = deformable_psroi_inputs(ctx, "deformable_psroi_pooling_grad")
        dout = ctx.input_array("Output@GRAD")
        top = ctx.input_array("TopCount")
        t = x.dtype.type
        std = t(np.float32(ctx.attr("trans_std")))
        dx = np.zeros_like(x)
        dtrans = None if trans is None else np.zeros_like(trans)
        one = t(1)
        for n, ctop, ph, pw, part, c, points in deformable_psroi_bins(ctx, x, rois, ids, trans):
            if top[n, ctop, ph, pw] <= 0:
                continue
            diff = dout[n, ctop, ph, pw] / top[n, ctop, ph, pw]
            cls, part_h, part_w, rw, rh = part
            img, gimg = x[ids[n]], dx[ids[n]]
            for w, h in points:
                x0, x1 = math.floor(w), math.ceil(w)
                y0, y1 = math.floor(h), math.ceil(h)
                ddx, ddy = t(w - t(x0)), t(h - t(y0))
                gimg[c, y0, x0] += (one - ddx) * (one - ddy) * diff
                gimg[c, y1, x0] += (one - ddx) * ddy * diff
                gimg[c, y0, x1] += ddx * (one - ddy) * diff
                gimg[c, y1, x1] += ddx * ddy * diff
                if dtrans is None:
                    continue
                u00, u01 = img[c, y0, x0], img[c, y1, x0]
                u10, u11 = img[c, y0, x1], img[c, y1, x1]
                gx = (u11 * ddy + u10 * (one - ddy) - u01 * ddy - u00 * (one - ddy)) * std * diff
                gy = (u11 * ddx + u01 * (one - ddx) - u10 * ddx - u00 * (one - ddx)) * std * diff
                dtrans[n, 2 * cls, part_h, part_w] += gx * rw
                dtrans[n, 2 * cls + 1, part_h, part_w] += gy * rh
        ctx.set_output("Input@GRAD", dx)
        if dtrans is not None and _grad_out(ctx, "Trans@GRAD"):
            ctx.set_output("Trans@GRAD", dtrans)
        elif _grad_out(ctx, "Trans@GRAD"):
            ctx.set_output("Trans@GRAD", np.zeros_like(ctx.input_array("Trans")))
