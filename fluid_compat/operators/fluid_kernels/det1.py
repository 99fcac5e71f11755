"""Fluid kernel of locality_aware_nms (Paddle 2.6.2 STRUCTURE kernel,
paddle/fluid/operators/detection/locality_aware_nms_op.cc)."""

from __future__ import annotations

import numpy as np
from phi.core.errors import InvalidArgument, Unimplemented

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.expected_kernel import expected_from_var
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []


def _iou(a, b, normalized: bool):
    from phi.kernels.nms import jaccard

    return jaccard(a, b, normalized)


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
        selected: list[int] = []
        adaptive = t(nms_thr)
        for idx in order:
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
    """Per-class locality-aware NMS (EAST); rows [label, score, box...] with the images' LoD,
    nothing kept at all: Out = [[-1]] with LoD ((0, 1),)."""

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
        if bboxes.shape[2] != 4:
            # Paddle's PolyIoU clips general polygons (gpc); not ported.
            raise Unimplemented("locality_aware_nms: polygon boxes (last dim 8/16/24/32) are "
                                "not supported, only [xmin, ymin, xmax, ymax].")
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


op_hooks("locality_aware_nms", get_expected_kernel_type=expected_from_var("Scores"))
