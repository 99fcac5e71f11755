"""The ``multiclass_nms3`` kernel."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.detection import greedy_nms

__all__ = ["greedy_poly_nms", "multiclass_nms3", "multiclass_nms_batch"]


_F = ["float32", "float64"]


def _sorted_above(scores, threshold: float, top_k: int) -> list[int]:
    """Indices with score > threshold, stable-sorted by descending score, at most top_k."""
    idx = np.nonzero(scores > threshold)[0]
    order = idx[np.argsort(-scores[idx], kind="stable")]
    if -1 < top_k < order.size:
        order = order[:top_k]
    return order.tolist()


def greedy_poly_nms(boxes, nms_threshold, eta) -> list[int]:
    """greedy_nms for polygons (8 / 16 / 24 / 32 coordinates): Paddle's PolyIoU, one pair at a
    time (``normalized`` plays no part for polygons in Paddle)."""
    from phi.kernels.funcs.poly_overlap import poly_iou

    real = boxes.dtype.type
    threshold, eta = real(nms_threshold), real(eta)
    kept: list[int] = []
    for i in range(len(boxes)):
        if all(poly_iou(boxes[i], boxes[k]) <= threshold for k in kept):
            kept.append(i)
            if eta < 1 and threshold > 0.5:
                threshold = real(threshold * eta)
    return kept


def _nms_fast(boxes, scores, score_threshold, nms_threshold, eta, top_k, normalized):
    """Paddle's NMSFast: the candidates above score_threshold in score order (at most top_k),
    then greedy_nms (boxes) or greedy_poly_nms (polygons)."""
    order = _sorted_above(scores, score_threshold, top_k)
    if not order:
        return []
    cand = boxes[np.asarray(order)]
    kept = (greedy_nms(cand, nms_threshold, eta, normalized) if cand.shape[-1] == 4
            else greedy_poly_nms(cand, nms_threshold, eta))
    return [order[i] for i in kept]


def _one_image(boxes, scores, class_boxes: bool, attrs) -> list[tuple[int, int]]:
    """(label, index) pairs kept for one image, in Paddle's output order."""
    (background, score_threshold, nms_top_k, nms_threshold, eta, keep_top_k,
     normalized) = attrs
    classes = scores.shape[1] if class_boxes else scores.shape[0]
    kept: dict[int, list[int]] = {}
    for c in range(classes):
        if c == background:
            continue
        s = scores[:, c] if class_boxes else scores[c]
        b = boxes[:, c] if class_boxes else boxes
        kept[c] = _nms_fast(b, s, score_threshold, nms_threshold, eta, nms_top_k, normalized)
    if class_boxes:  # the LoD / RoisNum form lists each label's boxes by index
        kept = {c: sorted(v) for c, v in kept.items()}
    total = sum(len(v) for v in kept.values())
    if -1 < keep_top_k < total:
        pairs = [((scores[i, c] if class_boxes else scores[c, i]), c, i)
                 for c, v in kept.items() for i in v]
        order = sorted(range(len(pairs)), key=lambda k: -pairs[k][0])  # stable
        kept = {}
        for k in order[:keep_top_k]:
            kept.setdefault(pairs[k][1], []).append(pairs[k][2])
        if class_boxes:  # Paddle sorts each label's indices in the LoD form
            kept = {c: sorted(v) for c, v in kept.items()}
    return [(c, i) for c in sorted(kept) for i in kept[c]]


def multiclass_nms_batch(bboxes, scores, starts, attrs):
    """Every image: (rows [label, score, x1, y1, x2, y2] (a polygon's coordinates for 8 / 16 /
    24 / 32-coordinate boxes), indices, counts).

    3-D form: bboxes [N, M, 4], scores [N, C, M], ``starts`` None.  LoD / RoisNum form: bboxes
    [M, C, 4], scores [M, C], ``starts`` the images' box offsets.
    """
    rows, index, counts = [], [], []
    if starts is None:
        if bboxes.ndim != 3 or scores.ndim != 3 or bboxes.shape[0] != scores.shape[0] or \
                bboxes.shape[1] != scores.shape[2]:
            raise InvalidArgument(f"multiclass_nms: BBoxes [N, M, 4] and Scores [N, C, M] do "
                                  f"not fit: {list(bboxes.shape)} and {list(scores.shape)}.")
        images = [(bboxes[i], scores[i], i * bboxes.shape[1], False)
                  for i in range(bboxes.shape[0])]
    else:
        if bboxes.ndim != 3 or scores.ndim != 2 or bboxes.shape[:2] != scores.shape:
            raise InvalidArgument(f"multiclass_nms: BBoxes [M, C, 4] and Scores [M, C] do not "
                                  f"fit: {list(bboxes.shape)} and {list(scores.shape)}.")
        c = scores.shape[1]
        images = [(bboxes[a:b], scores[a:b], a * c, True) for a, b in pairwise(starts)]
    for b, s, offset, class_boxes in images:
        kept = _one_image(b, s, class_boxes, attrs)
        for c, i in kept:
            if class_boxes:
                rows.append([c, s[i, c], *b[i, c]])
                index.append(offset + i * s.shape[1] + c)
            else:
                rows.append([c, s[c, i], *b[i]])
                index.append(offset + i)
        counts.append(len(kept))
    out = np.asarray(rows, bboxes.dtype).reshape(-1, 2 + bboxes.shape[-1])
    return out, np.asarray(index, np.int32).reshape(-1, 1), counts


def _attrs(background_label, score_threshold, nms_top_k, nms_threshold, nms_eta, keep_top_k,
           normalized):
    f = float
    return (background_label, f(np.float32(score_threshold)), nms_top_k,
            f(np.float32(nms_threshold)), f(np.float32(nms_eta)), keep_top_k, normalized)


@register_kernel("multiclass_nms3", "CPU", dtypes=_F,
                 input_defs={"rois_num": {"dtype": DataType.ALL_DTYPE}},
                 output_defs={1: {"dtype": DataType.INT32}, 2: {"dtype": DataType.INT32}})
def multiclass_nms3(ctx, bboxes: Tensor, scores: Tensor, rois_num: Tensor | None,
                    score_threshold: float, nms_top_k: int, keep_top_k: int,
                    nms_threshold: float, normalized: bool, nms_eta: float,
                    background_label: int) -> tuple[Tensor, Tensor, Tensor]:
    """(Out [K, 6] rows label, score, box; Index [K, 1]; NmsRoisNum per image).  Boxes
    [N, M, 4] with scores [N, C, M], or per-class boxes [M, C, 4] with scores [M, C] split by
    RoisNum; nothing kept: empty outputs and zero counts."""
    starts = None
    if scores.ndim == 2:
        if rois_num is None:
            raise InvalidArgument("multiclass_nms3: 2-D Scores need RoisNum (boxes per image).")
        starts = [0, *np.cumsum(np.asarray(rois_num).reshape(-1)).tolist()]
    out, index, counts = multiclass_nms_batch(
        bboxes, scores, starts, _attrs(background_label, score_threshold, nms_top_k,
                                       nms_threshold, nms_eta, keep_top_k, normalized))
    return out, index, np.asarray(counts, np.int32)
