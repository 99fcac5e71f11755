"""The ``matrix_nms`` kernel."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.detection import jaccard

__all__ = ["matrix_nms", "partial_sort"]


_F = ["float32", "float64"]


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
