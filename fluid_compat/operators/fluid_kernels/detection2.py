"""Fluid kernels of detection ops Paddle 2.6.2 runs as STRUCTURE kernels (issue 12, item 2,
second batch): deformable_psroi_pooling."""

from __future__ import annotations

import math

import numpy as np
from phi.core.errors import InvalidArgument

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.expected_kernel import expected_from_var
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []

_F = ("float32", "float64")


def _bilinear(t, plane, w, h):
    """Paddle's bilinear_interp: floor / ceil corners, weights in T, summed left to right."""
    x1, x2, y1, y2 = math.floor(w), math.ceil(w), math.floor(h), math.ceil(h)
    dx, dy = t(w - t(x1)), t(h - t(y1))
    one = t(1)
    return ((one - dx) * (one - dy) * plane[y1, x1] + (one - dx) * dy * plane[y2, x1]
            + dx * (one - dy) * plane[y1, x2] + dx * dy * plane[y2, x2])


@register_fluid_kernel("deformable_psroi_pooling", "CPU", _F)
class DeformablePsroiPoolingKernel(FluidKernel):
    """Position-sensitive RoI pooling whose bins move by Trans * trans_std * the RoI size;
    each bin averages sample_per_part^2 bilinear samples inside the image (TopCount of them)."""

    def compute(self, ctx) -> None:
        op = "deformable_psroi_pooling"
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
        batch, channels, height, width = x.shape
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
        t = x.dtype.type
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
        ss, std, half = t(np.float32(ctx.attr("spatial_scale"))), t(np.float32(
            ctx.attr("trans_std"))), t(0.5)
        out = np.zeros((rois.shape[0], out_dim, ph_n, pw_n), x.dtype)
        count = np.zeros_like(out)
        for n, roi in enumerate(rois.astype(t)):
            # std::round: half away from zero
            r = [t(math.copysign(math.floor(abs(float(v)) + 0.5), float(v))) for v in roi]
            sw, sh = r[0] * ss - half, r[1] * ss - half
            rw = max(t((r[2] + t(1)) * ss - half) - sw, t(0.1))
            rh = max(t((r[3] + t(1)) * ss - half) - sh, t(0.1))
            bw, bh = rw / t(pw_n), rh / t(ph_n)
            sbw, sbh = bw / t(spp), bh / t(spp)
            img = x[ids[n]]
            for ctop in range(out_dim):
                cls = ctop // per_cls
                for ph in range(ph_n):
                    part_h = math.floor(t(ph) / t(ph_n) * t(part_h_n))
                    gh = min(max(math.floor(t(ph) * t(grp_h) / t(ph_n)), 0), grp_h - 1)
                    for pw in range(pw_n):
                        part_w = math.floor(t(pw) / t(pw_n) * t(part_w_n))
                        gw = min(max(math.floor(t(pw) * t(grp_w) / t(pw_n)), 0), grp_w - 1)
                        tx = t(0) if no_trans else trans[n, 2 * cls, part_h, part_w] * std
                        ty = t(0) if no_trans else trans[n, 2 * cls + 1, part_h, part_w] * std
                        ws = t(pw) * bw + sw + tx * rw
                        hs = t(ph) * bh + sh + ty * rh
                        plane = img[(ctop * grp_h + gh) * grp_w + gw]
                        total, num = t(0), 0
                        for ih in range(spp):
                            for iw in range(spp):
                                w, h = ws + t(iw) * sbw, hs + t(ih) * sbh
                                if w < -0.5 or w > width - 0.5 or h < -0.5 or h > height - 0.5:
                                    continue
                                w = min(max(w, t(0)), t(width - 1))
                                h = min(max(h, t(0)), t(height - 1))
                                total = t(total + _bilinear(t, plane, w, h))
                                num += 1
                        out[n, ctop, ph, pw] = t(0) if num == 0 else total / t(num)
                        count[n, ctop, ph, pw] = num
        ctx.set_output("TopCount", count)
        ctx.set_output("Output", out)


op_hooks("deformable_psroi_pooling", get_expected_kernel_type=expected_from_var("Input"))
