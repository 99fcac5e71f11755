"""Fluid kernel of generate_proposal_labels (Faster / Cascade R-CNN's RoI sampling), a STRUCTURE
kernel in Paddle 2.6.2 (paddle/fluid/operators/detection/generate_proposal_labels_op.cc).
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import bbox_overlaps
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.lod import from_lengths

__all__: list[str] = []


_OP = "generate_proposal_labels"


def _reservoir(rng, inds: list, gts: list | None, keep: int, bound: int) -> None:
    """Paddle's reservoir sampling in place (swaps only when the draw is below ``bound``: for
    the background Paddle compares with the foreground count, kept as it does)."""
    for i in range(keep, len(inds)):
        k = int(np.floor(np.float32(rng.random()) * np.float32(i)))
        if k < bound:
            inds[k], inds[i] = inds[i], inds[k]
            if gts is not None:
                gts[k], gts[i] = gts[i], gts[k]


def _sample(t, iou, crowd, attrs, rng):
    """SampleFgBgGt: foreground (max IoU >= fg_thresh, first best ground truth), background
    (max IoU in [bg_thresh_lo, bg_thresh_hi)); crowd ground truths are neither; then the first
    batch_size_per_im * fg_fraction foregrounds and the rest of the batch in backgrounds
    (cascade: all of them)."""
    fg, bg, gt = [], [], []
    eps = t(np.float32(1e-5))
    fg_thresh, bg_hi, bg_lo = (t(np.float32(attrs[k])) for k in ("fg_thresh", "bg_thresh_hi",
                                                                   "bg_thresh_lo"))
    for i in range(iou.shape[0]):
        best = iou[i].max()
        if i < crowd.size and crowd[i]:
            best = t(-1)
        if best >= fg_thresh:
            j = int(np.flatnonzero(np.abs(best - iou[i]) < eps)[0])
            fg.append(i)
            gt.append(j)
        elif bg_lo <= best < bg_hi:
            bg.append(i)
    if attrs["is_cascade_rcnn"]:
        return fg, bg, gt
    batch = attrs["batch_size_per_im"]
    fg_max = int(np.floor(np.float32(batch) * np.float32(attrs["fg_fraction"])))
    n_fg = min(fg_max, len(fg))
    if rng is not None and len(fg) > n_fg:
        _reservoir(rng, fg, gt, n_fg, n_fg)
    n_bg = min(batch - n_fg, len(bg))
    if rng is not None and len(bg) > n_bg:
        _reservoir(rng, bg, None, n_bg, n_fg)
    return fg[:n_fg], bg[:max(n_bg, 0)], gt[:n_fg]


def _box_to_delta(t, ex, gt, weights):
    """BoxToDelta with pixel boxes (+1) and the regression weights."""
    one, half = t(1), t(0.5)
    ew, eh = ex[:, 2] - ex[:, 0] + one, ex[:, 3] - ex[:, 1] + one
    gw, gh = gt[:, 2] - gt[:, 0] + one, gt[:, 3] - gt[:, 1] + one
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.stack([((gt[:, 0] + half * gw) - (ex[:, 0] + half * ew)) / ew,
                      ((gt[:, 1] + half * gh) - (ex[:, 1] + half * eh)) / eh,
                      np.log(gw / ew), np.log(gh / eh)], axis=1).astype(t)
    return (d / weights[None, :]).astype(t)


def _one_image(t, rois, gt_boxes, gt_classes, crowd, im_scale, max_overlap, attrs, rng):
    """SampleRoisForOneImage: (rois, labels, targets, inside = outside weights, max IoU)."""
    rois = (rois / im_scale).astype(t)
    if attrs["is_cascade_rcnn"]:  # FilterRoIs: drop empty boxes and fed-back ground truths
        one = t(1)
        keep = ((rois[:, 2] - rois[:, 0] + one > 0) & (rois[:, 3] - rois[:, 1] + one > 0)
                & (max_overlap < one))
        rois = rois[keep] if keep.any() else np.zeros((1, 4), t)  # Paddle: one zero box
    boxes = np.concatenate([gt_boxes, rois]).astype(t)
    iou = bbox_overlaps(t, boxes, gt_boxes)
    fg, bg, gt = _sample(t, iou, crowd, attrs, rng)
    sel = np.asarray(fg + bg, np.int64)
    labels = np.concatenate([gt_classes[np.asarray(gt, np.int64)],
                             np.zeros(len(bg), np.int32)]).astype(np.int32)
    weights = np.asarray(attrs["bbox_reg_weights"], np.float32).astype(t)
    delta = _box_to_delta(t, boxes[fg].reshape(-1, 4), gt_boxes[np.asarray(gt, np.int64)]
                          .reshape(-1, 4), weights)
    classes = attrs["class_nums"]
    targets = np.zeros((sel.size, 4 * classes), t)
    inside = np.zeros_like(targets)
    for i, label in enumerate(labels[:len(fg)]):
        if label <= 0:
            continue
        col = 1 if attrs["is_cls_agnostic"] else int(label)
        if col >= classes:
            raise InvalidArgument(f"{_OP}: GtClasses holds label {label}, class_nums is "
                                  f"{classes}.")
        targets[i, 4 * col:4 * col + 4] = delta[i]
        inside[i, 4 * col:4 * col + 4] = 1
    return (boxes[sel].reshape(-1, 4) * im_scale).astype(t), labels, targets, inside, \
        iou.max(1)[sel] if iou.shape[1] else np.zeros(sel.size, t)


_ATTRS = ("batch_size_per_im", "fg_fraction", "fg_thresh", "bg_thresh_hi", "bg_thresh_lo",
          "bbox_reg_weights", "class_nums", "use_random", "is_cascade_rcnn", "is_cls_agnostic")


@register_fluid_kernel(_OP, "CPU", ("float32", "float64"))
class GenerateProposalLabelsKernel(FluidKernel):
    """Per image of RpnRois' LoD: RoIs (mapped back by ImInfo's scale) and ground truths
    sampled into foreground / background, their labels, class-expanded regression targets and
    weights, max IoU with the ground truths; outputs with a LoD per image."""

    def compute(self, ctx) -> None:
        slots = ("RpnRois", "GtClasses", "IsCrowd", "GtBoxes")
        ts = {s: ctx.input(s) for s in slots}
        for s, v in ts.items():
            if v is None or len(v.lod) != 1:
                raise InvalidArgument(f"{_OP}: Input({s}) needs 1 level of LoD, got "
                                      f"{0 if v is None else len(v.lod)} levels.")
        rois = ts["RpnRois"].data
        gt_boxes = np.asarray(ts["GtBoxes"].data)
        info = ctx.input_array("ImInfo")
        if rois.ndim != 2 or gt_boxes.ndim != 2 or info.ndim != 2:
            raise InvalidArgument(f"{_OP}: RpnRois, GtBoxes and ImInfo must be 2-D, got dims "
                                  f"{list(rois.shape)}, {list(gt_boxes.shape)}, "
                                  f"{list(info.shape)}.")
        attrs = {k: ctx.attr(k) for k in _ATTRS}
        if len(attrs["bbox_reg_weights"]) != 4:
            raise InvalidArgument(f"{_OP}: bbox_reg_weights must hold 4 values, got "
                                  f"{attrs['bbox_reg_weights']}.")
        t = rois.dtype.type
        over_t = ctx.input("MaxOverlap")
        if attrs["is_cascade_rcnn"] and over_t is None:
            raise InvalidArgument(f"{_OP}: Input(MaxOverlap) is needed when is_cascade_rcnn "
                                  "is true.")
        over = np.asarray(over_t.data).reshape(-1) if over_t is not None else None
        classes = np.asarray(ts["GtClasses"].data).reshape(-1)
        crowd = np.asarray(ts["IsCrowd"].data).reshape(-1)
        offs = {s: ts[s].lod[0] for s in slots}
        n = len(offs["RpnRois"]) - 1
        if any(len(offs[s]) - 1 < n for s in slots[1:]) or info.shape[0] < n:
            raise InvalidArgument(f"{_OP}: RpnRois holds {n} images; GtClasses, IsCrowd, "
                                  "GtBoxes (their LoD) and ImInfo must hold as many.")
        # Paddle seeds std::minstd_rand from std::random_device: its draws are not reproducible
        rng = np.random.default_rng() if attrs["use_random"] else None
        parts, counts = [], []
        for i, (a, b) in enumerate(pairwise(offs["RpnRois"])):
            if a == b:
                counts.append(0)
                continue
            ga, gb = offs["GtBoxes"][i], offs["GtBoxes"][i + 1]
            ca, cb = offs["IsCrowd"][i], offs["IsCrowd"][i + 1]
            la, lb = offs["GtClasses"][i], offs["GtClasses"][i + 1]
            part = _one_image(t, rois[a:b], gt_boxes[ga:gb].astype(t), classes[la:lb],
                              crowd[ca:cb], t(info[i, 2]),
                              None if over is None else over[a:b], attrs, rng)
            parts.append(part)
            counts.append(part[0].shape[0])
        width = 4 * attrs["class_nums"]
        empty = (np.zeros((0, 4), t), np.zeros(0, np.int32), np.zeros((0, width), t),
                 np.zeros((0, width), t), np.zeros(0, t))
        out = [np.concatenate([p[k] for p in parts]) if parts else empty[k] for k in range(5)]
        lod = from_lengths([counts])
        ctx.set_output("Rois", out[0], lod=lod)
        ctx.set_output("LabelsInt32", out[1].reshape(-1, 1), DataType.INT32, lod=lod)
        ctx.set_output("BboxTargets", out[2], lod=lod)
        ctx.set_output("BboxInsideWeights", out[3], lod=lod)
        ctx.set_output("BboxOutsideWeights", out[3].copy(), lod=lod)
        ctx.set_output("MaxOverlapWithGT", out[4].astype(t), lod=lod)

