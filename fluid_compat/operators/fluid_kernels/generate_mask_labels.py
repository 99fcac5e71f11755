"""generate_mask_labels (paddle/fluid/operators/detection/generate_mask_labels_op.cc and
mask_util.cc; Paddle 2.6.2 runs it as a STRUCTURE kernel): Mask R-CNN mask targets.

Per image: the foreground rois (LabelsInt32 > 0) are matched to the non-crowd, non-background
gt whose polygons' bounding box overlaps them most; the gt's polygons, taken relative to the roi
and scaled to resolution x resolution, are rasterized as the COCO API's rleFrPoly does (5x
upsampled edges, column-major run lengths) and placed in the roi class's slot of a
[num_classes * resolution^2] target filled with -1.  An image without a foreground roi gives
one target: Paddle's first roi of the image (whatever its label), class 0, all -1.
"""

from __future__ import annotations

import math

import numpy as np

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


def poly_to_mask(xy, h: int, w: int) -> np.ndarray:
    """mask_util.cc Poly2Mask (COCO rleFrPoly + decode): a [h, w] uint8 mask of polygon xy."""
    scale = 5.0
    k = len(xy) // 2
    x = [int(scale * float(xy[2 * j]) + 0.5) for j in range(k)] + [0]
    y = [int(scale * float(xy[2 * j + 1]) + 0.5) for j in range(k)] + [0]
    x[k], y[k] = x[0], y[0]
    u, v = [], []
    for j in range(k):  # points along the upsampled edges
        xs, xe, ys, ye = x[j], x[j + 1], y[j], y[j + 1]
        dx, dy = abs(xe - xs), abs(ys - ye)
        flip = (dx >= dy and xs > xe) or (dx < dy and ys > ye)
        if flip:
            xs, xe, ys, ye = xe, xs, ye, ys
        if dx >= dy:
            s = 0.0 if dx == 0 else (ye - ys) / dx
            for d in range(dx + 1):
                t = dx - d if flip else d
                u.append(t + xs)
                v.append(int(ys + s * t + 0.5))
        else:
            s = 0.0 if dy == 0 else (xe - xs) / dy
            for d in range(dy + 1):
                t = dy - d if flip else d
                v.append(t + ys)
                u.append(int(xs + s * t + 0.5))
    bx, by = [], []  # y-boundary points, downsampled
    for j in range(1, len(u)):
        if u[j] != u[j - 1]:
            xd = float(u[j] if u[j] < u[j - 1] else u[j] - 1)
            xd = (xd + 0.5) / scale - 0.5
            if math.floor(xd) != xd or xd < 0 or xd > w - 1:
                continue
            yd = float(v[j] if v[j] < v[j - 1] else v[j - 1])
            yd = min(max((yd + 0.5) / scale - 0.5, 0.0), float(h))
            bx.append(int(xd))
            by.append(math.ceil(yd))
    a = sorted([bx[j] * h + by[j] for j in range(len(bx))] + [h * w])
    runs, p = [], 0
    for t in a:
        runs.append(t - p)
        p = t
    b = [runs[0]]
    j = 1
    while j < len(runs):
        if runs[j] > 0:
            b.append(runs[j])
            j += 1
        else:
            j += 1
            if j < len(runs):
                b[-1] += runs[j]
                j += 1
    flat = np.zeros(h * w, np.uint8)  # column-major runs of 0, 1, 0, ...
    pos, val = 0, 0
    for n in b:
        flat[pos:pos + n] = val
        pos += n
        val ^= 1
    return flat.reshape(w, h).T.copy()


def polys_to_mask_wrt_box(polys, box, m: int) -> np.ndarray:
    """Polys2MaskWrtBox: the polygons relative to box, scaled to m x m (float32), OR-ed."""
    f32 = np.float32
    w = max(f32(box[2]) - f32(box[0]), f32(1.0))
    h = max(f32(box[3]) - f32(box[1]), f32(1.0))
    mask = np.zeros((m, m), np.uint8)
    for poly in polys:
        pts = np.asarray(poly, f32).reshape(-1, 2)
        pw = (pts[:, 0] - f32(box[0])) * f32(m) / w
        ph = (pts[:, 1] - f32(box[1])) * f32(m) / h
        mask |= poly_to_mask(np.stack([pw, ph], 1).ravel(), m, m)
    return mask


def _overlaps(a, b) -> np.ndarray:
    """BboxOverlaps with Paddle's +1 pixel convention (float32)."""
    one = np.float32(1)
    area_a = (a[:, 2] - a[:, 0] + one) * (a[:, 3] - a[:, 1] + one)
    area_b = (b[:, 2] - b[:, 0] + one) * (b[:, 3] - b[:, 1] + one)
    iw = np.maximum(np.minimum(a[:, None, 2], b[None, :, 2]) -
                    np.maximum(a[:, None, 0], b[None, :, 0]) + one, 0)
    ih = np.maximum(np.minimum(a[:, None, 3], b[None, :, 3]) -
                    np.maximum(a[:, None, 1], b[None, :, 1]) + one, 0)
    inter = iw * ih
    return inter / (area_a[:, None] + area_b[None, :] - inter)


def _one_image(scale, classes, crowd, points, polys_per_gt, pts_per_poly, rois, labels,
               num_classes: int, m: int):
    poly_off = np.concatenate([[0], np.cumsum(polys_per_gt)]).astype(int)
    pt_off = np.concatenate([[0], np.cumsum(pts_per_poly)]).astype(int)
    gt_polys = []
    for i in range(len(classes)):
        if classes[i] > 0 and crowd[i] == 0:
            polys = []
            for j in range(poly_off[i], poly_off[i + 1]):
                s, e = pt_off[j], pt_off[j + 1]
                if s == e:
                    raise InvalidArgument(
                        f"generate_mask_labels: The start point and the end point in the poly "
                        f"segment [{j}] should not be same, but received the start point [{s}] "
                        f"and the end point [{e}].")
                polys.append(points[s:e].ravel())
            gt_polys.append(polys)
    boxes = np.array([[min(p[0::2].min() for p in g), min(p[1::2].min() for p in g),
                       max(p[0::2].max() for p in g), max(p[1::2].max() for p in g)]
                      for g in gt_polys], np.float32).reshape(-1, 4)
    fg = np.flatnonzero(labels > 0)
    if fg.size:
        cls = labels[fg]
        rois_fg = rois[fg] / scale
        ov = _overlaps(rois_fg, boxes)
        masks = []
        for i in range(fg.size):
            # the first gt with the largest overlap above float's min (0 overlaps: gt 0)
            best, idx = np.finfo(np.float32).tiny, 0
            for j in range(ov.shape[1]):
                if ov[i, j] > best:
                    best, idx = ov[i, j], j
            masks.append(polys_to_mask_wrt_box(gt_polys[idx], rois_fg[i], m).ravel())
        has_mask = fg
    else:  # Paddle copies the image's FIRST roi here, not the first background one
        rois_fg = rois[:1] / scale
        cls = np.zeros(1, np.int64)
        masks = [None]
        has_mask = np.flatnonzero(labels == 0)[:1]
    target = np.full((len(masks), num_classes * m * m), -1, np.int32)
    for i, c in enumerate(cls):
        if c > 0:
            target[i, c * m * m:(c + 1) * m * m] = masks[i]
    return (rois_fg * scale).astype(np.float32), has_mask.astype(np.int32), target


@register_fluid_kernel("generate_mask_labels", "CPU", ("float32",))
class GenerateMaskLabelsKernel(FluidKernel):
    """Mask targets of the foreground rois of every image (LoD: one sequence per image)."""

    def compute(self, ctx) -> None:
        t = {s: ctx.input(s) for s in ("ImInfo", "GtClasses", "IsCrowd", "GtSegms", "Rois",
                                        "LabelsInt32")}
        num_classes, m = int(ctx.attr("num_classes")), int(ctx.attr("resolution"))
        for slot, levels in (("GtClasses", 1), ("IsCrowd", 1), ("GtSegms", 3)):
            if len(t[slot].lod) != levels:
                raise InvalidArgument(f"generate_mask_labels: Input({slot}) needs {levels} "
                                      f"level(s) of LoD, but received {len(t[slot].lod)}.")
        for slot in ("Rois", "LabelsInt32"):
            if not t[slot].lod:
                raise InvalidArgument(f"generate_mask_labels: Input({slot}) needs a LoD.")
        n = len(t["GtClasses"].lod[-1]) - 1
        segm_lod = t["GtSegms"].lod
        if len(segm_lod[0]) - 1 != n:
            raise InvalidArgument(
                f"generate_mask_labels: the batch size of Input(GtSegms) "
                f"({len(segm_lod[0]) - 1}) and Input(GtClasses) ({n}) must be the same.")
        im_info = np.asarray(t["ImInfo"].data)
        classes_lod, crowd_lod = t["GtClasses"].lod[-1], t["IsCrowd"].lod[-1]
        rois_lod, labels_lod = t["Rois"].lod[-1], t["LabelsInt32"].lod[-1]
        classes = np.asarray(t["GtClasses"].data).reshape(-1)
        crowd = np.asarray(t["IsCrowd"].data).reshape(-1)
        points = np.asarray(t["GtSegms"].data, np.float32).reshape(-1, 2)
        rois = np.asarray(t["Rois"].data, np.float32).reshape(-1, 4)
        labels = np.asarray(t["LabelsInt32"].data).reshape(-1)
        out_rois, out_has, out_mask, offsets = [], [], [], [0]
        for i in range(n):
            if rois_lod[i] == rois_lod[i + 1]:
                offsets.append(offsets[-1])
                continue
            g0, g1 = segm_lod[0][i], segm_lod[0][i + 1]  # this image's gts, polys, points
            p0, p1 = segm_lod[1][g0], segm_lod[1][g1]
            polys_per_gt = np.diff(segm_lod[1][g0:g1 + 1])
            pts_per_poly = np.diff(segm_lod[2][p0:p1 + 1])
            pts = points[segm_lod[2][p0]:segm_lod[2][p1]]
            r, h, mk = _one_image(
                np.float32(im_info[i, 2]), classes[classes_lod[i]:classes_lod[i + 1]],
                crowd[crowd_lod[i]:crowd_lod[i + 1]], pts, polys_per_gt, pts_per_poly,
                rois[rois_lod[i]:rois_lod[i + 1]], labels[labels_lod[i]:labels_lod[i + 1]],
                num_classes, m)
            out_rois.append(r)
            out_has.append(h)
            out_mask.append(mk)
            offsets.append(offsets[-1] + len(r))
        lod = (tuple(offsets),)
        dim = num_classes * m * m
        ctx.set_output("MaskRois", np.concatenate(out_rois) if out_rois else
                       np.zeros((0, 4), np.float32), lod=lod)
        ctx.set_output("RoiHasMaskInt32", (np.concatenate(out_has) if out_has else
                                           np.zeros(0, np.int32)).reshape(-1, 1), lod=lod)
        ctx.set_output("MaskInt32", np.concatenate(out_mask) if out_mask else
                       np.zeros((0, dim), np.int32), lod=lod)

