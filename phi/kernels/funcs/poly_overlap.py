"""Overlap of polygon boxes as Paddle 2.6.2 measures it (paddle/phi/kernels/funcs/detection/
poly_util.h and nms_util.h: PolyArea, PolyOverlapArea, PolyIoU), for the NMS ops whose boxes are
[x1, y1, x2, y2, ...] polygons (8, 16, 24 or 32 coordinates).

Paddle's facts reproduced here:
- a box's area is the shoelace sum over its vertices in the given order, accumulated in the
  box's dtype, halved and made absolute (so a self-crossing "bow tie" can cancel to 0);
- the intersection is clipped by the General Polygon Clipper (even-odd fill, double precision);
  its area here comes from a scan-beam sweep of both polygons (the region between consecutive
  event heights is a union of trapezoids whose width is linear in y), which is the same region,
  so the value agrees up to rounding;
- ``normalized`` plays no part for polygons (unlike the +1 of pixel boxes in JaccardOverlap);
- IoU = inter / (area1 + area2 - inter) in the dtype, and 0 when any of the three areas is 0.

Paddle sums |area| over every contour gpc returns, holes included; the intersection of two
simple polygons has no hole (the complements of both reach infinity, so theirs is connected), so
that differs from the sweep only for self-crossing polygons whose clip encloses a hole.
"""

from __future__ import annotations

import numpy as np

__all__ = ["poly_area", "poly_intersection_area", "poly_iou"]


def poly_area(box: np.ndarray) -> np.generic:
    """PolyArea: |shoelace| / 2 over the vertices in order, in the box's dtype."""
    t = box.dtype.type
    xs, ys = box[0::2], box[1::2]
    n = xs.size
    if n < 3:
        return t(0)
    area = t(0)
    for i in range(n):
        j = (i + 1) % n
        # one product per term, then the difference, in T (as the C++ float expression)
        area = t(area + t(t(xs[i] * ys[j]) - t(ys[i] * xs[j])))
    return t(abs(float(area) / 2.0))


def _edges(xs: list[float], ys: list[float]) -> list[tuple[float, float, float, float]]:
    """The closed polygon's non-horizontal edges (horizontal ones never cross a scan line)."""
    n = len(xs)
    out = []
    for i in range(n):
        j = (i + 1) % n
        if ys[i] != ys[j]:
            out.append((xs[i], ys[i], xs[j], ys[j]))
    return out


def _crossing_heights(edges, lo: float, hi: float) -> list[float]:
    """Heights strictly inside (lo, hi) where two edges cross (the order of edges along a scan
    line changes only there)."""
    out = []
    for a in range(len(edges)):
        x1, y1, x2, y2 = edges[a]
        dx1, dy1 = x2 - x1, y2 - y1
        for b in range(a + 1, len(edges)):
            x3, y3, x4, y4 = edges[b]
            dx2, dy2 = x4 - x3, y4 - y3
            den = dx1 * dy2 - dy1 * dx2
            if den == 0:
                continue  # parallel (or collinear): the order never swaps inside a beam
            t = ((x3 - x1) * dy2 - (y3 - y1) * dx2) / den
            s = ((x3 - x1) * dy1 - (y3 - y1) * dx1) / den
            if 0 < t < 1 and 0 < s < 1:
                y = y1 + t * dy1
                if lo < y < hi:
                    out.append(y)
    return out


def _inside_runs(edges, y: float) -> list[tuple[float, float]]:
    """Even-odd inside intervals of one polygon on the scan line at height y."""
    xs = sorted(x1 + (y - y1) * (x2 - x1) / (y2 - y1)
                for x1, y1, x2, y2 in edges if min(y1, y2) < y < max(y1, y2))
    return [(xs[k], xs[k + 1]) for k in range(0, len(xs) - 1, 2)]


def _overlap_length(r1, r2) -> float:
    """Total length of the intersection of two sorted lists of disjoint intervals."""
    total, i, j = 0.0, 0, 0
    while i < len(r1) and j < len(r2):
        lo, hi = max(r1[i][0], r2[j][0]), min(r1[i][1], r2[j][1])
        if hi > lo:
            total += hi - lo
        if r1[i][1] < r2[j][1]:
            i += 1
        else:
            j += 1
    return total


def poly_intersection_area(box1: np.ndarray, box2: np.ndarray) -> float:
    """Area (float) of the even-odd intersection of two polygons [x1, y1, x2, y2, ...]."""
    x1s, y1s = [float(v) for v in box1[0::2]], [float(v) for v in box1[1::2]]
    x2s, y2s = [float(v) for v in box2[0::2]], [float(v) for v in box2[1::2]]
    if len(x1s) < 3 or len(x2s) < 3:
        return 0.0
    # gpc drops the contours whose bounding boxes do not meet: nothing to clip
    lo, hi = max(min(y1s), min(y2s)), min(max(y1s), max(y2s))
    if not (hi > lo and min(max(x1s), max(x2s)) > max(min(x1s), min(x2s))):
        return 0.0
    e1, e2 = _edges(x1s, y1s), _edges(x2s, y2s)
    heights = {y for y in y1s + y2s if lo < y < hi}
    heights.update(_crossing_heights(e1 + e2, lo, hi))
    levels = sorted(heights | {lo, hi})
    area = 0.0
    for k in range(len(levels) - 1):
        y0, y1 = levels[k], levels[k + 1]
        mid = 0.5 * (y0 + y1)
        # inside one beam no edges cross: the overlap's width is linear in y, so the midpoint
        # width times the height is the exact area of the beam's trapezoids
        width = _overlap_length(_inside_runs(e1, mid), _inside_runs(e2, mid))
        area += width * (y1 - y0)
    return area


def poly_iou(box1: np.ndarray, box2: np.ndarray) -> np.generic:
    """PolyIoU of two polygon boxes of one dtype (``normalized`` does not enter)."""
    t = box1.dtype.type
    a1, a2 = poly_area(box1), poly_area(box2)
    inter = t(poly_intersection_area(box1, box2))
    if a1 == 0 or a2 == 0 or inter == 0:
        return t(0)
    return t(inter / t(t(a1 + a2) - inter))
