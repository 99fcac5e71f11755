"""Fluid kernels of detection ops Paddle 2.6.2 runs as STRUCTURE kernels (issue 12, item 2,
second batch): deformable_psroi_pooling, rpn_target_assign, retinanet_target_assign."""

from __future__ import annotations

import math

import numpy as np
from phi.core.errors import InvalidArgument
from phi.kernels.funcs.quant import round_half_away

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


@register_fluid_kernel("deformable_psroi_pooling", "CPU", _F)
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


op_hooks("deformable_psroi_pooling", get_expected_kernel_type=expected_from_var("Input"))


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


def _bbox_overlaps(t, a, b):
    """Paddle's BboxOverlaps: IoU with the +1 pixel convention, 0 where nothing intersects."""
    one = t(1)
    area_a = (a[:, 2] - a[:, 0] + one) * (a[:, 3] - a[:, 1] + one)
    area_b = (b[:, 2] - b[:, 0] + one) * (b[:, 3] - b[:, 1] + one)
    iw = np.maximum(np.minimum(a[:, None, 2], b[None, :, 2])
                    - np.maximum(a[:, None, 0], b[None, :, 0]) + one, t(0))
    ih = np.maximum(np.minimum(a[:, None, 3], b[None, :, 3])
                    - np.maximum(a[:, None, 1], b[None, :, 1]) + one, t(0))
    inter = iw * ih
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area_a[:, None] + area_b[None, :] - inter)
    return np.where(inter == 0, t(0), iou).astype(t)


def _box_to_delta(t, ex, gt):
    """Paddle's BoxToDelta (no weights, pixel boxes): centre offsets / size, log size ratios."""
    one, half = t(1), t(0.5)
    ew, eh = ex[:, 2] - ex[:, 0] + one, ex[:, 3] - ex[:, 1] + one
    gw, gh = gt[:, 2] - gt[:, 0] + one, gt[:, 3] - gt[:, 1] + one
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.stack([((gt[:, 0] + half * gw) - (ex[:, 0] + half * ew)) / ew,
                         ((gt[:, 1] + half * gh) - (ex[:, 1] + half * eh)) / eh,
                         np.log(gw / ew), np.log(gh / eh)], axis=1).astype(t)


def _rpn_sample(t, overlap, batch_size, fg_fraction, pos, neg, use_random):
    """Paddle's ScoreAssign + SampleRpnFgBgGt for one image (indices into inside anchors)."""
    n_anchor, n_gt = overlap.shape
    low = np.finfo(t).min  # Eigen's max over nothing: no ground truth makes all background
    a_max, g_max = overlap.max(1, initial=low), overlap.max(0, initial=low)
    a_arg = overlap.argmax(1) if n_gt else np.zeros(n_anchor, np.int64)
    is_max = (np.abs(overlap - g_max[None, :]) < np.float32(1e-5)).any(1)
    fg_fake = list(np.flatnonzero(is_max | (a_max >= t(pos))))
    sampling = fg_fraction > 0 and batch_size > 0
    rng = np.random.default_rng() if use_random else None

    def reservoir(num, inds):
        if len(inds) > num:
            if rng is not None:  # Paddle seeds std::minstd_rand from std::random_device
                for i in range(num, len(inds)):
                    k = int(np.floor(np.float32(rng.random()) * i))
                    if k < num:
                        inds[k], inds[i] = inds[i], inds[k]
            del inds[num:]
    if sampling:
        reservoir(int(np.float32(fg_fraction) * np.float32(batch_size)), fg_fake)
    label = np.full(n_anchor, -1)
    label[fg_fake] = 1
    bg_fake = list(np.flatnonzero(a_max < t(neg)))
    if sampling:
        reservoir(batch_size - len(fg_fake), bg_fake)
    loc, weight = [], []
    for i in bg_fake:
        if label[i] == 1:  # a sampled background overwrites a foreground: Paddle keeps a
            loc.append(fg_fake[0])  # zero-weight location entry for it
            weight.append([0, 0, 0, 0])
        label[i] = 0
    weight += [[1, 1, 1, 1]] * (len(fg_fake) - len(loc))
    fg, bg = np.flatnonzero(label == 1), np.flatnonzero(label == 0)
    loc = np.array(loc + list(fg), np.int64)
    return (loc, np.concatenate([fg, bg]), np.r_[np.ones(fg.size), np.zeros(bg.size)],
            a_arg[loc], np.array(weight, t).reshape(-1, 4), fg)


def _target_assign(ctx, op: str, retina: bool) -> None:
    """rpn_target_assign / retinanet_target_assign: per image of GtBoxes' LoD, anchors inside
    the image (straddle threshold), non-crowd ground truth scaled by ImInfo, Paddle's
    ScoreAssign; outputs concatenated with a LoD (anchor indices offset by image)."""
    anchor = ctx.input_array("Anchor")
    slots = ("GtBoxes", "GtLabels", "IsCrowd") if retina else ("GtBoxes", "IsCrowd")
    ts = [ctx.input(s) for s in slots]
    if any(len(v.lod) != 1 for v in ts):
        raise InvalidArgument(f"{op}: {', '.join(slots)} need 1 level of LoD, got "
                              f"{[len(v.lod) for v in ts]} levels.")
    if anchor.ndim != 2 or anchor.shape[1] != 4:
        raise InvalidArgument(f"{op}: Anchor must be [A, 4], got {list(anchor.shape)}.")
    im_info = ctx.input_array("ImInfo")
    t = anchor.dtype.type
    gt, crowd = np.asarray(ts[0].data, t).reshape(-1, 4), np.asarray(ts[-1].data).ravel()
    labels = np.asarray(ts[1].data).ravel() if retina else None
    offs = [v.lod[0] for v in ts]
    n_img = len(offs[0]) - 1
    if im_info.ndim != 2 or im_info.shape[0] < n_img or im_info.shape[1] < 3:
        raise InvalidArgument(f"{op}: ImInfo must hold [height, width, scale] of each of the "
                              f"{n_img} images, got {list(im_info.shape)}.")
    if retina:
        straddle, batch, frac = np.float32(-1), -1, -1.0
        pos, neg = ctx.attr("positive_overlap"), ctx.attr("negative_overlap")
    else:
        straddle, batch = np.float32(ctx.attr("rpn_straddle_thresh")), ctx.attr(
            "rpn_batch_size_per_im")
        frac, pos, neg = (ctx.attr("rpn_fg_fraction"), ctx.attr("rpn_positive_overlap"),
                          ctx.attr("rpn_negative_overlap"))
    use_random = False if retina else ctx.attr("use_random")
    outs = [[] for _ in range(6)]
    loc_lod, score_lod = [0], [0]
    for i in range(n_img):
        h, w, scale = (t(v) for v in im_info[i, :3])
        if straddle >= 0:
            s = t(straddle)
            inside = np.flatnonzero((anchor[:, 0] >= -s) & (anchor[:, 1] >= -s)
                                    & (anchor[:, 2] < w + s) & (anchor[:, 3] < h + s))
        else:
            inside = np.arange(anchor.shape[0])
        keep = crowd[offs[-1][i]:offs[-1][i + 1]] == 0
        boxes = gt[offs[0][i]:offs[0][i + 1]][keep] * scale
        loc, score, lbl, gt_ind, weight, fg = _rpn_sample(
            t, _bbox_overlaps(t, anchor[inside], boxes), batch, frac, pos, neg, use_random)
        if retina and fg.size:  # a foreground's label is its matched ground truth's class
            lbl[:fg.size] = labels[offs[1][i]:offs[1][i + 1]][keep][gt_ind[-fg.size:]]
        loc, score = inside[loc], inside[score]
        deltas = _box_to_delta(t, anchor[loc], boxes[gt_ind])
        for k, v in enumerate((loc + i * anchor.shape[0], score + i * anchor.shape[0], deltas,
                               lbl, weight, np.array([loc.size + 1]))):
            outs[k].append(v)
        loc_lod.append(loc_lod[-1] + loc.size)
        score_lod.append(score_lod[-1] + score.size)
    if n_img == 0:
        outs = [[np.zeros(0, np.int64)], [np.zeros(0, np.int64)], [np.zeros((0, 4), t)],
                [np.zeros(0, np.int64)], [np.zeros((0, 4), t)], [np.zeros(0, np.int64)]]
    loc, score, deltas, lbl, weight, fg_num = (np.concatenate(o) for o in outs)
    ll, sl = (tuple(loc_lod),), (tuple(score_lod),)
    ctx.set_output("LocationIndex", loc.astype(np.int32), lod=ll)
    ctx.set_output("ScoreIndex", score.astype(np.int32), lod=sl)
    ctx.set_output("TargetBBox", deltas.reshape(-1, 4).astype(t), lod=ll)
    ctx.set_output("TargetLabel", lbl.astype(np.int32).reshape(-1, 1), lod=sl)
    ctx.set_output("BBoxInsideWeight", weight.reshape(-1, 4).astype(t), lod=ll)
    if retina:
        ctx.set_output("ForegroundNumber", fg_num.astype(np.int32).reshape(-1, 1),
                       lod=(tuple(range(n_img + 1)),))


@register_fluid_kernel("rpn_target_assign", "CPU", _F)
class RpnTargetAssignKernel(FluidKernel):
    """Faster R-CNN's RPN targets: foreground / background anchors sampled to
    rpn_batch_size_per_im (first ones kept when use_random is false), box deltas."""

    def compute(self, ctx) -> None:
        _target_assign(ctx, "rpn_target_assign", retina=False)


@register_fluid_kernel("retinanet_target_assign", "CPU", _F)
class RetinanetTargetAssignKernel(FluidKernel):
    """RetinaNet's targets: every foreground / background anchor (no sampling, no straddle
    filter), foreground labels from GtLabels, ForegroundNumber = foregrounds + 1 per image."""

    def compute(self, ctx) -> None:
        _target_assign(ctx, "retinanet_target_assign", retina=True)


op_hooks("rpn_target_assign", get_expected_kernel_type=expected_from_var("Anchor"))
op_hooks("retinanet_target_assign", get_expected_kernel_type=expected_from_var("Anchor"))
