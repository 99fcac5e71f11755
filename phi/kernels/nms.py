"""The NMS family (Paddle's paddle/phi/kernels/cpu/{multiclass_nms3,matrix_nms,nms}_kernel.cc
and paddle/fluid/operators/detection/multiclass_nms_op.cc): per-class greedy NMS with Paddle's
ordering (stable sort by descending score, ties keep the lower index), adaptive eta, keep_top_k
across classes; matrix NMS with linear / gaussian decay; plain NMS over boxes in given order.

``multiclass_nms_batch`` is shared with the fluid kernels of multiclass_nms / multiclass_nms2."""

from __future__ import annotations

import functools
from itertools import pairwise

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["greedy_nms", "greedy_poly_nms", "jaccard", "matrix_nms", "multiclass_nms3",
           "multiclass_nms_batch", "nms", "partial_sort"]

_F = ["float32", "float64"]


def _area(b, normalized: bool):
    w = b[..., 2] - b[..., 0]
    h = b[..., 3] - b[..., 1]
    bad = (b[..., 2] < b[..., 0]) | (b[..., 3] < b[..., 1])
    area = w * h if normalized else (w + 1) * (h + 1)
    return np.where(bad, 0, area)


def jaccard(a, b, normalized: bool):
    """Paddle's JaccardOverlap of boxes a [..., 4] and b [..., 4] (broadcasting)."""
    norm = 0 if normalized else 1
    apart = (b[..., 0] > a[..., 2]) | (b[..., 2] < a[..., 0]) | (b[..., 1] > a[..., 3]) | (
        b[..., 3] < a[..., 1])
    iw = np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]) + norm
    ih = np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]) + norm
    inter = iw * ih
    with np.errstate(invalid="ignore", divide="ignore"):
        iou = inter / (_area(a, normalized) + _area(b, normalized) - inter)
    return np.where(apart, 0, iou)


def _sorted_above(scores, threshold: float, top_k: int) -> list[int]:
    """Indices with score > threshold, stable-sorted by descending score, at most top_k."""
    idx = np.nonzero(scores > threshold)[0]
    order = idx[np.argsort(-scores[idx], kind="stable")]
    if -1 < top_k < order.size:
        order = order[:top_k]
    return order.tolist()


class _IoURows:
    """IoUs of one candidate with a range of others, as Paddle's JaccardOverlap computes them
    (the same float operations in the boxes' dtype, so the same bits; the overlap is
    symmetric bit for bit: max / min and the sum of the two areas commute)."""

    def __init__(self, boxes, normalized: bool) -> None:
        b = np.ascontiguousarray(boxes)
        self.x1, self.y1, self.x2, self.y2 = (np.ascontiguousarray(b[:, k]) for k in range(4))
        self.norm = b.dtype.type(0 if normalized else 1)
        self.area = _area(b, normalized)

    def row(self, i: int, others) -> np.ndarray:
        x1, y1, x2, y2 = self.x1, self.y1, self.x2, self.y2
        apart = ((x1[others] > x2[i]) | (x2[others] < x1[i]) | (y1[others] > y2[i])
                 | (y2[others] < y1[i]))
        iw = np.minimum(x2[i], x2[others]) - np.maximum(x1[i], x1[others]) + self.norm
        ih = np.minimum(y2[i], y2[others]) - np.maximum(y1[i], y1[others]) + self.norm
        inter = iw * ih
        with np.errstate(invalid="ignore", divide="ignore"):
            iou = inter / (self.area[i] + self.area[others] - inter)
        iou[apart] = 0
        return iou


#: candidates from which greedy_nms takes the compiled loop (when numba imports)
_COMPILED_MIN = 32


@functools.cache
def _compiled_greedy():
    """Paddle's NMSFast loop compiled by numba (no fast-math: the same float operations in the
    same order as its C++, so the same keep decisions as the numpy path; tests compare the
    two on random, degenerate and tied boxes); None without numba or with
    FLAGS_kernel_numba off."""
    try:
        from phi import flags

        if not flags.FLAGS["FLAGS_kernel_numba"]:
            return None
        import numba
    except Exception:  # numba missing or broken: the numpy path
        return None

    @numba.njit(cache=True, nogil=True, error_model="numpy")  # 0 / 0 is NaN, as in C++
    def greedy(x1, y1, x2, y2, area, norm, threshold, eta, out):
        zero = norm - norm
        count = 0
        for i in range(x1.size):
            keep = True
            for k in range(count):
                j = out[k]  # JaccardOverlap(candidate i, kept j)
                if x1[j] > x2[i] or x2[j] < x1[i] or y1[j] > y2[i] or y2[j] < y1[i]:
                    overlap = zero
                else:
                    iw = min(x2[i], x2[j]) - max(x1[i], x1[j]) + norm
                    ih = min(y2[i], y2[j]) - max(y1[i], y1[j]) + norm
                    inter = iw * ih
                    overlap = inter / (area[i] + area[j] - inter)
                if not overlap <= threshold:  # Paddle keeps on <=: NaN suppresses
                    keep = False
                    break
            if keep:
                out[count] = i
                count += 1
                if eta < 1 and threshold > 0.5:
                    threshold = threshold * eta
        return count

    return greedy


def greedy_nms(boxes, nms_threshold, eta, normalized: bool) -> list[int]:
    """Paddle's greedy NMS over ``boxes`` [n, 4] already in candidate order (NMSFast and the
    NMS of generate_proposals, retinanet_detection_output, locality_aware_nms): the positions
    kept.  A candidate is dropped when its IoU with a kept box is above the threshold of the
    moment (at the threshold it stays; a NaN IoU, of two touching empty boxes, drops it: Paddle
    keeps on ``IoU <= threshold``); after each kept box the threshold, kept in the boxes' dtype
    as Paddle keeps it, is multiplied by eta while it is above 0.5.

    Compiled (numba, `_compiled_greedy`) from _COMPILED_MIN candidates, else vectorised, the
    same decisions either way: each kept box computes its IoUs with the candidates once
    (`_IoURows`); with a fixed threshold (eta 1) those above it are suppressed at once, with
    eta < 1 each candidate is tested at its own turn against the kept boxes' rows."""
    n = len(boxes)
    if n == 0:
        return []
    ious = _IoURows(boxes, normalized)
    real = ious.area.dtype.type
    threshold, eta = real(nms_threshold), real(eta)
    loop = _compiled_greedy() if n >= _COMPILED_MIN else None
    if loop is not None:
        out = np.empty(n, dtype=np.intp)
        with np.errstate(invalid="ignore", divide="ignore"):
            count = loop(ious.x1, ious.y1, ious.x2, ious.y2, ious.area, ious.norm, threshold,
                         eta, out)
        return out[:count].tolist()
    if eta >= 1:
        suppressed = np.zeros(n, dtype=bool)
        selected = []
        for i in range(n):
            if suppressed[i]:
                continue
            selected.append(i)
            if i + 1 < n:  # Paddle keeps a candidate on IoU <= threshold (NaN suppresses)
                suppressed[i + 1:] |= ~(ious.row(i, slice(i + 1, n)) <= threshold)
        return selected
    rows = np.zeros((min(n, 64), n), dtype=ious.area.dtype)  # row k: kept box k vs all
    kept: list[int] = []
    for i in range(n):
        count = len(kept)
        if count and not (rows[:count, i] <= threshold).all():
            continue
        if count == rows.shape[0]:
            rows = np.concatenate([rows, np.zeros_like(rows)])
        rows[count] = ious.row(i, slice(0, n))
        kept.append(i)
        if threshold > 0.5:
            threshold = real(threshold * eta)
    return kept


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


def _adjust_heap(a, hole: int, n: int, value, less) -> None:
    """libstdc++'s __adjust_heap (then __push_heap) on a[0:n]."""
    top = hole
    child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if less(a[child], a[child - 1]):
            child -= 1
        a[hole] = a[child]
        hole = child
    if (n & 1) == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        a[hole] = a[child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(a[parent], value):
        a[hole] = a[parent]
        hole = parent
        parent = (hole - 1) // 2
    a[hole] = value


def partial_sort(a: list, middle: int, less) -> list:
    """std::partial_sort(first, first + middle, last, comp) as libstdc++ does it (heap select,
    then sort_heap): the order Paddle's kernels give to ties."""
    a = list(a)
    n = len(a)
    if middle <= 0:
        return a
    if middle > 1:  # make_heap
        for parent in range((middle - 2) // 2, -1, -1):
            _adjust_heap(a, parent, middle, a[parent], less)
    for i in range(middle, n):  # heap select
        if less(a[i], a[0]):
            value = a[i]
            a[i] = a[0]
            _adjust_heap(a, 0, middle, value, less)
    for end in range(middle - 1, 0, -1):  # sort_heap
        value = a[end]
        a[end] = a[0]
        _adjust_heap(a, 0, end, value, less)
    return a


def _decay(iou, max_iou, use_gaussian: bool, sigma: float):
    if use_gaussian:
        return np.exp((max_iou * max_iou - iou * iou) * sigma)
    return (1 - iou) / (1 - max_iou)


@register_kernel("matrix_nms", "CPU", dtypes=_F,
                 output_defs={1: {"dtype": DataType.INT32}, 2: {"dtype": DataType.INT32}})
def matrix_nms(ctx, bboxes: Tensor, scores: Tensor, score_threshold: float, nms_top_k: int,
               keep_top_k: int, post_threshold: float, use_gaussian: bool,
               gaussian_sigma: float, background_label: int, normalized: bool
               ) -> tuple[Tensor, Tensor, Tensor]:
    """Matrix NMS (SOLOv2): each box's score decays by its overlaps with higher-scored boxes
    of its class; kept when the decayed score exceeds post_threshold; keep_top_k per image."""
    if bboxes.ndim != 3 or scores.ndim != 3:
        raise InvalidArgument(f"matrix_nms: BBoxes [N, M, 4] and Scores [N, C, M] expected, got "
                              f"{list(bboxes.shape)} and {list(scores.shape)}.")
    t = bboxes.dtype.type
    st, pt = float(np.float32(score_threshold)), float(np.float32(post_threshold))
    sigma = t(np.float32(gaussian_sigma))
    rows, index, counts = [], [], []
    m = bboxes.shape[1]
    for n in range(bboxes.shape[0]):
        dets = []
        for c in range(scores.shape[1]):
            if c == background_label:
                continue
            s = scores[n, c]
            # std::remove_if keeps the order; std::partial_sort of the first num_pre
            perm = [i for i in range(s.size) if not s[i] <= st]
            num_pre = len(perm)
            if num_pre == 0:
                continue
            if -1 < nms_top_k < num_pre:
                num_pre = nms_top_k
            perm = partial_sort(perm, num_pre, lambda a, b, s=s: s[a] > s[b])[:num_pre]
            b = bboxes[n, perm]
            iou = jaccard(b[:, None, :], b[None, :, :], normalized).astype(bboxes.dtype)
            iou = np.tril(iou, -1)
            iou_max = iou.max(axis=1) if len(perm) > 1 else np.zeros(1, bboxes.dtype)
            iou_max[0] = 0
            for k, idx in enumerate(perm):
                if k == 0:
                    decayed = s[idx]
                else:
                    with np.errstate(divide="ignore", invalid="ignore"):
                        d = _decay(iou[k, :k], iou_max[:k], use_gaussian, sigma)
                    decayed = min(t(1), d.min()) * s[idx]
                    if decayed <= pt:
                        continue
                if k == 0 and not decayed > pt:
                    continue
                dets.append((decayed, c, idx))
        num = len(dets)
        if -1 < keep_top_k < num:
            num = keep_top_k
        order = partial_sort(list(range(len(dets))), num,
                             lambda a, b, d=dets: d[a][0] > d[b][0])[:num]
        for k in order:
            score, c, idx = dets[k]
            rows.append([c, score, *bboxes[n, idx]])
            index.append(n * m + idx)
        counts.append(len(order))
    return (np.asarray(rows, bboxes.dtype).reshape(-1, 6),
            np.asarray(index, np.int32).reshape(-1, 1), np.asarray(counts, np.int32))


@register_kernel("nms", "CPU", dtypes=_F, output_defs={0: {"dtype": DataType.INT64}})
def nms(ctx, boxes: Tensor, iou_threshold: float) -> Tensor:
    """Indices of the boxes kept, in the given order: a box is dropped when its IoU with a kept
    earlier box exceeds the threshold."""
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise InvalidArgument(f"nms: Boxes must be [N, 4], got dims {list(boxes.shape)}.")
    threshold = float(np.float32(iou_threshold))
    n = boxes.shape[0]
    dropped = np.zeros(n, bool)
    keep = []
    iou = jaccard(boxes[:, None, :], boxes[None, :, :], True)
    for i in range(n):
        if dropped[i]:
            continue
        keep.append(i)
        dropped[i + 1:] |= iou[i, i + 1:] > threshold
    return np.asarray(keep, np.int64)
