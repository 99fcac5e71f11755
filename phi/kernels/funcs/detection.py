"""Helpers shared by the detection kernels: box overlap (Jaccard), greedy NMS (the compiled
loop and its numpy form), RoI batch ids and checks."""

from __future__ import annotations

import functools

import numpy as np

from phi.core.errors import InvalidArgument

__all__ = ["check_rois", "greedy_nms", "jaccard", "roi_batch_ids"]


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


def roi_batch_ids(op: str, rois, rois_num, batch: int) -> np.ndarray:
    """The image of each RoI: from RoisNum (counts per image) or the ROIs' last LoD level."""
    n = rois.data.shape[0]
    if rois_num is not None:
        counts = np.asarray(rois_num).reshape(-1).astype(np.int64)
        if counts.size != batch:
            raise InvalidArgument(f"{op}: RoisNum holds {counts.size} counts for a batch of "
                                  f"{batch}.")
    elif rois.lod:
        counts = np.diff(np.asarray(rois.lod[-1], np.int64))
        if counts.size != batch:
            raise InvalidArgument(f"{op}: the ROIs' LoD holds {counts.size} images, the batch "
                                  f"size of X is {batch}.")
    else:
        raise InvalidArgument(f"{op}: give RoisNum or a LoD on ROIs (which image each RoI "
                              "belongs to).")
    if counts.sum() != n:
        raise InvalidArgument(f"{op}: the RoI counts add up to {counts.sum()}, ROIs has {n}.")
    return np.repeat(np.arange(batch), counts)


def check_rois(op, x, rois):
    if x.ndim != 4:
        raise InvalidArgument(f"{op}: X must be 4-D (NCHW), got dims {list(x.shape)}.")
    if rois.data.ndim != 2 or rois.data.shape[1] != 4:
        raise InvalidArgument(f"{op}: ROIs must be [num_rois, 4], got dims "
                              f"{list(rois.data.shape)}.")
