"""Fluid kernels of locality_aware_nms and retinanet_detection_output (Paddle 2.6.2 STRUCTURE
kernels, paddle/fluid/operators/detection/*)."""

from __future__ import annotations

import numpy as np
from phi.core.errors import InvalidArgument

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.expected_kernel import expected_from_var
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []


def _iou(a, b, normalized: bool):
    """JaccardOverlap of [xmin, ymin, xmax, ymax] boxes, PolyIoU of 8 / 16 / 24 / 32
    coordinate polygons (where ``normalized`` plays no part)."""
    if a.shape[-1] == 4:
        from phi.kernels.funcs.detection import jaccard

        return jaccard(a, b, normalized)
    from phi.kernels.funcs.poly_overlap import poly_iou

    return poly_iou(a, b)


def _merge_and_sort(boxes, scores, threshold, top_k, nms_threshold, normalized) -> list[int]:
    """Paddle's GetMaxScoreIndexWithLocalityAware: consecutive boxes overlapping the current
    one are merged into it IN PLACE (score-weighted coordinates, summed scores); the survivors
    above threshold, stable-sorted by descending score, at most top_k."""
    n = boxes.shape[0]
    skip = [True] * n
    index = -1
    for i in range(n):
        if index > -1:
            if _iou(boxes[i], boxes[index], normalized) > nms_threshold:
                s1, s2 = scores[i], scores[index]
                boxes[index] = (boxes[i] * s1 + boxes[index] * s2) / (s1 + s2)
                scores[index] = scores[index] + scores[i]
            else:
                skip[index] = False
                index = i
        else:
            index = i
    if index > -1:
        skip[index] = False
    cand = [i for i in range(n) if scores[i] > threshold and not skip[i]]
    cand.sort(key=lambda i: -scores[i])  # stable, like std::stable_sort
    if -1 < top_k < len(cand):
        cand = cand[:top_k]
    return cand


def _one_image(boxes, scores, attrs) -> dict[int, list[int]]:
    """LocalityAwareNMS of one image; boxes and scores are modified in place as Paddle does
    (a class's merges stay visible to the later classes)."""
    background, score_thr, nms_top_k, nms_thr, eta, keep_top_k, normalized = attrs
    t = scores.dtype.type
    indices: dict[int, list[int]] = {}
    for c in range(scores.shape[0]):
        if c == background:
            continue
        order = _merge_and_sort(boxes, scores[c], t(score_thr), nms_top_k, t(nms_thr),
                                normalized)
        if boxes.shape[-1] == 4:  # Paddle's greedy NMS, vectorised (phi.kernels.nms)
            from phi.kernels.funcs.detection import greedy_nms

            kept = greedy_nms(boxes[np.asarray(order, dtype=np.intp)], t(nms_thr), t(eta),
                              normalized) if order else []
            indices[c] = [order[k] for k in kept]
            continue
        selected: list[int] = []
        adaptive = t(nms_thr)
        for idx in order:  # polygons: one PolyIoU a pair
            keep = all(_iou(boxes[idx], boxes[k], normalized) <= adaptive for k in selected)
            if keep:
                selected.append(idx)
                if eta < 1 and adaptive > 0.5:
                    adaptive = t(adaptive * t(eta))
        indices[c] = selected
    num = sum(len(v) for v in indices.values())
    if -1 < keep_top_k < num:
        pairs = [(float(scores[c, i]), c, i) for c, v in indices.items() for i in v]
        pairs.sort(key=lambda p: -p[0])
        indices = {}
        for _, c, i in pairs[:keep_top_k]:
            indices.setdefault(c, []).append(i)
    return dict(sorted(indices.items()))


@register_fluid_kernel("locality_aware_nms", "CPU", ("float32", "float64"))
class LocalityAwareNmsKernel(FluidKernel):
    """Per-class locality-aware NMS (EAST / SAST); boxes [xmin, ymin, xmax, ymax] or polygons
    of 8 / 16 / 24 / 32 coordinates (phi.kernels.poly_overlap); rows [label, score, box...] with
    the images' LoD, nothing kept at all: Out = [[-1]] with LoD ((0, 1),)."""

    def compute(self, ctx) -> None:
        bboxes = np.array(ctx.input_array("BBoxes"), copy=True)
        scores = np.array(ctx.input_array("Scores"), copy=True)
        if bboxes.ndim != 3 or scores.ndim != 3:
            raise InvalidArgument(f"locality_aware_nms: BBoxes and Scores must be 3-D, got "
                                  f"dims {list(bboxes.shape)} and {list(scores.shape)}.")
        if bboxes.shape[2] not in (4, 8, 16, 24, 32) or bboxes.shape[1] != scores.shape[2]:
            raise InvalidArgument(f"locality_aware_nms: BBoxes must be [N, M, 4|8|16|24|32] "
                                  f"with M = Scores' last dim, got dims {list(bboxes.shape)} "
                                  f"and {list(scores.shape)}.")
        attrs = (ctx.attr("background_label"), float(np.float32(ctx.attr("score_threshold"))),
                 ctx.attr("nms_top_k"), float(np.float32(ctx.attr("nms_threshold"))),
                 float(np.float32(ctx.attr("nms_eta"))), ctx.attr("keep_top_k"),
                 ctx.attr("normalized"))
        rows, starts = [], [0]
        for b in range(bboxes.shape[0]):
            kept = _one_image(bboxes[b], scores[b], attrs)
            for c, idxs in kept.items():
                for i in idxs:
                    rows.append(np.concatenate([np.array([c, scores[b, c, i]], bboxes.dtype),
                                                bboxes[b, i]]))
            starts.append(len(rows))
        if rows:
            out = np.stack(rows).astype(bboxes.dtype)
        else:
            out, starts = np.full((1, 1), -1, bboxes.dtype), [0, 1]
        ctx.set_output("Out", out, lod=(tuple(starts),))


def _decode(deltas, anchors, h, w, scale):
    """Anchor deltas [K, 4] to boxes in the original image, clipped (Paddle's
    DeltaScoreToPrediction: pixel anchors +1, the -1 on the far corner, then / scale)."""
    t = deltas.dtype.type
    h, w = t(np.round(h / scale)), t(np.round(w / scale))  # std::round: half away from zero
    aw = anchors[:, 2] - anchors[:, 0] + t(1)
    ah = anchors[:, 3] - anchors[:, 1] + t(1)
    cx = deltas[:, 0] * aw + (anchors[:, 0] + aw / t(2))
    cy = deltas[:, 1] * ah + (anchors[:, 1] + ah / t(2))
    tw, th = np.exp(deltas[:, 2]) * aw, np.exp(deltas[:, 3]) * ah
    box = np.stack([cx - tw / t(2), cy - th / t(2), cx + tw / t(2) - t(1),
                    cy + th / t(2) - t(1)], axis=1) / scale
    hi = np.array([w, h, w, h], deltas.dtype) - t(1)
    return np.maximum(np.minimum(box, hi), t(0))


def _retinanet_image(levels, im_info, attrs) -> list[np.ndarray]:
    """Rows [label + 1, score, box] of one image, by descending score (keep_top_k)."""
    from phi.kernels.funcs.detection import greedy_nms

    score_thr, nms_top_k, nms_thr, eta, keep_top_k = attrs
    preds: dict[int, list[np.ndarray]] = {}
    for li, (deltas, scores, anchors) in enumerate(levels):
        t = scores.dtype.type
        flat = scores.reshape(-1)
        thr = t(score_thr) if li < len(levels) - 1 else t(0)  # the last level: threshold 0
        idx = np.nonzero(flat > thr)[0]
        idx = idx[np.argsort(-flat[idx], kind="stable")]
        if -1 < nms_top_k < idx.size:
            idx = idx[:nms_top_k]
        c_num = scores.shape[1]
        boxes = _decode(deltas[idx // c_num], anchors[idx // c_num], *im_info)
        for k, i in enumerate(idx):
            preds.setdefault(int(i % c_num), []).append(np.append(boxes[k], flat[i]))
    pairs = []
    for c in sorted(preds):
        dets = np.stack(preds[c])
        order = np.argsort(-dets[:, 4], kind="stable")  # as the stable sort by score
        t = dets.dtype.type
        kept = greedy_nms(dets[order, :4], t(nms_thr), t(eta), False)
        pairs += [(float(dets[i, 4]), c, int(i)) for i in order[kept]]
    pairs.sort(key=lambda p: -p[0])
    if len(pairs) > keep_top_k:
        pairs = pairs[:max(keep_top_k, 0)]
    return [np.concatenate([[c + 1, preds[c][i][4]], preds[c][i][:4]]) for _, c, i in pairs]


@register_fluid_kernel("retinanet_detection_output", "CPU", ("float32", "float64"))
class RetinanetDetectionOutputKernel(FluidKernel):
    """Decode each FPN level's top anchors, per-class NMS over all levels, keep_top_k per
    image; rows [label + 1, score, x1, y1, x2, y2] with the images' LoD (none kept: Out
    left unwritten, as Paddle does)."""

    def compute(self, ctx) -> None:
        boxes = [t.data for t in ctx.multi_input("BBoxes")]
        scores = [t.data for t in ctx.multi_input("Scores")]
        anchors = [t.data for t in ctx.multi_input("Anchors")]
        im_info = ctx.input_array("ImInfo")
        if not (len(boxes) == len(scores) == len(anchors)) or any(
                b.ndim != 3 or b.shape[2] != 4 or s.ndim != 3 or s.shape[:2] != b.shape[:2]
                or a.shape != (b.shape[1], 4)
                for b, s, a in zip(boxes, scores, anchors, strict=False)):
            raise InvalidArgument("retinanet_detection_output: each level needs BBoxes [N, M, "
                                  "4], Scores [N, M, C] and Anchors [M, 4], got "
                                  f"{[list(b.shape) for b in boxes]}, "
                                  f"{[list(s.shape) for s in scores]}, "
                                  f"{[list(a.shape) for a in anchors]}.")
        attrs = (float(np.float32(ctx.attr("score_threshold"))), ctx.attr("nms_top_k"),
                 float(np.float32(ctx.attr("nms_threshold"))),
                 float(np.float32(ctx.attr("nms_eta"))), ctx.attr("keep_top_k"))
        dtype = scores[0].dtype
        rows, starts = [], [0]
        for n in range(scores[0].shape[0]):
            levels = [(b[n], s[n], a) for b, s, a in zip(boxes, scores, anchors, strict=False)]
            rows += _retinanet_image(levels, tuple(im_info[n, :3]), attrs)
            starts.append(len(rows))
        if rows:  # none kept: Paddle only resizes Out to [0, 6], leaving it unallocated
            ctx.set_output("Out", np.stack(rows).astype(dtype), lod=(tuple(starts),))


op_hooks("retinanet_detection_output", get_expected_kernel_type=expected_from_var("Scores"))
op_hooks("locality_aware_nms", get_expected_kernel_type=expected_from_var("Scores"))
