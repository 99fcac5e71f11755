"""The fluid kernels of deformable_psroi_pooling, deformable_psroi_pooling_grad."""

from __future__ import annotations

import math

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import FLOATS, grad_out
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.funcs.quant import round_half_away

__all__: list[str] = []


def _bilinear(t, plane, w, h):
    """Paddle's bilinear_interp: floor / ceil corners, weights in T, summed left to right."""
    x1, x2, y1, y2 = math.floor(w), math.ceil(w), math.floor(h), math.ceil(h)
    dx, dy = t(w - t(x1)), t(h - t(y1))
    one = t(1)
    return ((one - dx) * (one - dy) * plane[y1, x1] + (one - dx) * dy * plane[y2, x1]
            + dx * (one - dy) * plane[y1, x2] + dx * dy * plane[y2, x2])


def deformable_psroi_inputs(ctx, op: str):
    """Input, ROIs, each RoI's image and Trans (None with no_trans) of deformable_psroi_pooling
    and its grad, checked: typed errors naming the op and what was expected."""
    x = ctx.input_array("Input")
    rois_t = ctx.input("ROIs")
    rois = np.asarray(rois_t.data)
    no_trans = bool(ctx.attr("no_trans"))
    out_dim, spp = ctx.attr("output_dim"), ctx.attr("sample_per_part")
    grp_h, grp_w = ctx.attr("group_size")
    ph_n, pw_n = ctx.attr("pooled_height"), ctx.attr("pooled_width")
    part_h_n, part_w_n = ctx.attr("part_size")
    if x.ndim != 4 or rois.ndim != 2 or rois.shape[1] != 4:
        raise InvalidArgument(f"{op}: Input must be 4-D and ROIs [num_rois, 4], got dims "
                              f"{list(x.shape)} and {list(rois.shape)}.")
    batch, channels = x.shape[:2]
    if channels < out_dim * grp_h * grp_w or min(out_dim, spp, ph_n, pw_n, grp_h, grp_w,
                                                 part_h_n, part_w_n) <= 0:
        raise InvalidArgument(f"{op}: Input's channels ({channels}) must hold output_dim * "
                              f"group_size ({out_dim} * {grp_h} * {grp_w}), and the sizes "
                              "must be positive.")
    if not rois_t.lod:
        raise InvalidArgument(f"{op}: ROIs needs a LoD (which image each RoI belongs to).")
    offs = np.asarray(rois_t.lod[-1], np.int64)
    if offs.size - 1 != batch or offs[-1] != rois.shape[0]:
        raise InvalidArgument(f"{op}: the ROIs' LoD {list(offs)} must hold {batch} images "
                              f"and {rois.shape[0]} RoIs.")
    ids = np.repeat(np.arange(batch), np.diff(offs))
    trans = None if no_trans else ctx.input_array("Trans")
    n_cls = 1 if no_trans else trans.shape[1] // 2
    per_cls = out_dim if no_trans else out_dim // max(n_cls, 1)
    if per_cls < 1:
        raise InvalidArgument(f"{op}: output_dim ({out_dim}) must be at least the number "
                              f"of classes of Trans ({n_cls}).")
    if trans is not None and (trans.ndim != 4 or trans.shape[0] != rois.shape[0]
                              or trans.shape[2] < part_h_n or trans.shape[3] < part_w_n):
        raise InvalidArgument(f"{op}: Trans must be [num_rois, 2 * classes, part_height, "
                              f"part_width], got dims {list(trans.shape)}.")
    return x, rois, ids, trans


@register_fluid_kernel("deformable_psroi_pooling", "CPU", FLOATS)
class DeformablePsroiPoolingKernel(FluidKernel):
    """Position-sensitive RoI pooling whose bins move by Trans * trans_std * the RoI size;
    each bin averages sample_per_part^2 bilinear samples inside the image (TopCount of them)."""

    def compute(self, ctx) -> None:
        x, rois, ids, trans = deformable_psroi_inputs(ctx, "deformable_psroi_pooling")
        t = x.dtype.type
        out_dim = ctx.attr("output_dim")
        ph_n, pw_n = ctx.attr("pooled_height"), ctx.attr("pooled_width")
        out = np.zeros((rois.shape[0], out_dim, ph_n, pw_n), x.dtype)
        count = np.zeros_like(out)
        for n, ctop, ph, pw, _b, c, points in deformable_psroi_bins(ctx, x, rois, ids, trans):
            plane = x[ids[n], c]
            total = t(0)
            for w, h in points:
                total = t(total + _bilinear(t, plane, w, h))
            out[n, ctop, ph, pw] = t(0) if not points else total / t(len(points))
            count[n, ctop, ph, pw] = len(points)
        ctx.set_output("TopCount", count)
        ctx.set_output("Output", out)


def deformable_psroi_bins(ctx, x, rois, ids, trans):
    """The bins of deformable_psroi_pooling (and its grad) in Paddle's loop order: per RoI n,
    output channel ctop and bin (ph, pw), a tuple (n, ctop, ph, pw, part, input channel,
    samples).  ``part`` = (class, part_h, part_w, RoI width, RoI height) addresses Trans;
    ``samples`` are the sample points (w, h) inside the image, clipped, in Paddle's order.
    All arithmetic in x's dtype T; RoI corners std::round-ed."""
    t = x.dtype.type
    _, _, height, width = x.shape
    out_dim, spp = ctx.attr("output_dim"), ctx.attr("sample_per_part")
    grp_h, grp_w = ctx.attr("group_size")
    ph_n, pw_n = ctx.attr("pooled_height"), ctx.attr("pooled_width")
    part_h_n, part_w_n = ctx.attr("part_size")
    per_cls = out_dim if trans is None else out_dim // max(trans.shape[1] // 2, 1)
    ss = t(np.float32(ctx.attr("spatial_scale")))
    std, half = t(np.float32(ctx.attr("trans_std"))), t(0.5)
    for n, r in enumerate(round_half_away(np, rois.astype(t))):
        sw, sh = r[0] * ss - half, r[1] * ss - half
        rw = max(t((r[2] + t(1)) * ss - half) - sw, t(0.1))
        rh = max(t((r[3] + t(1)) * ss - half) - sh, t(0.1))
        bw, bh = rw / t(pw_n), rh / t(ph_n)
        sbw, sbh = bw / t(spp), bh / t(spp)
        for ctop in range(out_dim):
            cls = ctop // per_cls
            for ph in range(ph_n):
                part_h = math.floor(t(ph) / t(ph_n) * t(part_h_n))
                gh = min(max(math.floor(t(ph) * t(grp_h) / t(ph_n)), 0), grp_h - 1)
                for pw in range(pw_n):
                    part_w = math.floor(t(pw) / t(pw_n) * t(part_w_n))
                    gw = min(max(math.floor(t(pw) * t(grp_w) / t(pw_n)), 0), grp_w - 1)
                    tx = t(0) if trans is None else trans[n, 2 * cls, part_h, part_w] * std
                    ty = t(0) if trans is None else trans[n, 2 * cls + 1, part_h, part_w] * std
                    ws = t(pw) * bw + sw + tx * rw
                    hs = t(ph) * bh + sh + ty * rh
                    points = []
                    for ih in range(spp):
                        for iw in range(spp):
                            w, h = ws + t(iw) * sbw, hs + t(ih) * sbh
                            if w < -0.5 or w > width - 0.5 or h < -0.5 or h > height - 0.5:
                                continue
                            points.append((min(max(w, t(0)), t(width - 1)),
                                           min(max(h, t(0)), t(height - 1))))
                    yield (n, ctop, ph, pw, (cls, part_h, part_w, rw, rh),
                           (ctop * grp_h + gh) * grp_w + gw, points)


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
        if dtrans is not None and grad_out(ctx, "Trans@GRAD"):
            ctx.set_output("Trans@GRAD", dtrans)
        elif grad_out(ctx, "Trans@GRAD"):
            ctx.set_output("Trans@GRAD", np.zeros_like(ctx.input_array("Trans")))

