"""The ``yolo_loss`` and ``yolo_loss_grad`` kernels."""

from __future__ import annotations

import math

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet

__all__ = ["yolo_loss"]


def _sce(t, x, label):
    """Paddle's SigmoidCrossEntropy<T>: x * label in T, the rest in double, returned as T."""
    xf = float(x)
    return t((xf if xf > 0 else 0.0) - float(t(x) * t(label))
             + math.log(1.0 + math.exp(-abs(xf))))


def _iou(t, b1, b2):
    """CalcBoxIoU on (x, y, w, h) centre boxes, in T (arrays broadcast)."""
    half = t(2)
    ow = np.minimum(b1[0] + b1[2] / half, b2[0] + b2[2] / half) - np.maximum(
        b1[0] - b1[2] / half, b2[0] - b2[2] / half)
    oh = np.minimum(b1[1] + b1[3] / half, b2[1] + b2[3] / half) - np.maximum(
        b1[1] - b1[3] / half, b2[1] - b2[3] / half)
    inter = np.where((ow < 0) | (oh < 0), t(0), ow * oh)
    with np.errstate(divide="ignore", invalid="ignore"):
        return inter / (b1[2] * b1[3] + b2[2] * b2[3] - inter)


@register_kernel("yolo_loss", "CPU", dtypes=["float32", "float64"],
                 input_defs={"gt_label": {"dtype": DataType.ALL_DTYPE}},
                 output_defs={2: {"dtype": DataType.INT32}})
def yolo_loss(ctx, x: Tensor, gt_box: Tensor, gt_label: Tensor, gt_score: Tensor | None,
              anchors: list[int], anchor_mask: list[int], class_num: int, ignore_thresh: float,
              downsample_ratio: int, use_label_smooth: bool, scale_x_y: float
              ) -> tuple[Tensor, Tensor, Tensor]:
    """Location, class and objectness losses of each image (Paddle's loop order); predictions
    overlapping a ground truth above ignore_thresh are left out of the objectness loss."""
    t = x.dtype.type
    n, _, h, w = x.shape
    mask_num, n_an, b = len(anchor_mask), len(anchors) // 2, gt_box.shape[1]
    input_size = downsample_ratio * h
    xr = x.reshape(n, mask_num, 5 + class_num, h, w)
    gtb = np.asarray(gt_box, t)
    labels = np.asarray(gt_label).astype(np.int64)
    score = np.ones((n, b), t) if gt_score is None else np.asarray(gt_score, t)
    pos, neg = t(1), t(0)
    if use_label_smooth:
        smooth = t(min(1.0 / float(t(class_num)), 1.0 / 40))
        pos, neg = t(1.0 - float(smooth)), smooth
    scale = np.float32(scale_x_y)
    bias = np.float32(-0.5 * (float(scale) - 1.0))
    thresh = t(np.float32(ignore_thresh))
    valid = ~((gtb[..., 2] < 1e-6) | (gtb[..., 3] < 1e-6))
    loss = np.zeros(n, t)
    obj = np.zeros((n, mask_num, h, w), t)
    match = np.zeros((n, b), np.int32)
    cols, rows = np.arange(w, dtype=t)[None, :], np.arange(h, dtype=t)[:, None]
    one = t(1)
    with np.errstate(over="ignore"):
        for i in range(n):
            for j in range(mask_num):
                a = anchor_mask[j]
                sx = one / (one + np.exp(-xr[i, j, 0]))
                sy = one / (one + np.exp(-xr[i, j, 1]))
                pred = ((cols + sx * t(scale) + t(bias)) / t(h),
                        (rows + sy * t(scale) + t(bias)) / t(h),
                        np.exp(xr[i, j, 2]) * t(anchors[2 * a]) / t(input_size),
                        np.exp(xr[i, j, 3]) * t(anchors[2 * a + 1]) / t(input_size))
                best = np.zeros((h, w), t)
                for k in range(b):
                    if valid[i, k]:
                        iou = _iou(t, pred, tuple(gtb[i, k]))
                        best = np.where(iou > best, iou, best)
                obj[i, j][best > thresh] = -1
            for k in range(b):
                if not valid[i, k]:
                    match[i, k] = -1
                    continue
                gx, gy, gw, gh = gtb[i, k]
                gi, gj = int(gx * t(w)), int(gy * t(h))
                best_iou, best_n = 0.0, 0
                for an in range(n_an):
                    an_box = (t(0), t(0), t(anchors[2 * an]) / t(input_size),
                              t(anchors[2 * an + 1]) / t(input_size))
                    iou = float(np.float32(_iou(t, an_box, (t(0), t(0), gw, gh))))
                    if iou > best_iou:
                        best_iou, best_n = iou, an
                m = anchor_mask.index(best_n) if best_n in anchor_mask else -1
                match[i, k] = m
                if m < 0:
                    continue
                if not (0 <= gi < w and 0 <= gj < h):
                    raise InvalidArgument(f"yolov3_loss: GTBox {k} of image {i} has its centre "
                                          f"({gx}, {gy}) outside the image [0, 1).")
                sc = score[i, k]
                p = xr[i, m, :, gj, gi]
                tx, ty = gx * t(h) - t(gi), gy * t(h) - t(gj)
                tw = np.log(gw * t(input_size) / t(anchors[2 * best_n]))
                th = np.log(gh * t(input_size) / t(anchors[2 * best_n + 1]))
                wt = t((2.0 - float(gw * gh)) * float(sc))
                acc = loss[i]
                acc += _sce(t, p[0], tx) * wt
                acc += _sce(t, p[1], ty) * wt
                acc += t(abs(tw - p[2])) * wt
                acc += t(abs(th - p[3])) * wt
                obj[i, m, gj, gi] = sc
                lab = labels[i, k]
                for c in range(class_num):
                    acc += _sce(t, p[5 + c], pos if c == lab else neg) * sc
                loss[i] = acc
        for i in range(n):
            acc = loss[i]
            for j in range(mask_num):
                for o, v in zip(obj[i, j].ravel(), xr[i, j, 4].ravel(), strict=False):
                    if o > 1e-5:
                        acc += _sce(t, v, one) * o
                    elif o > -0.5:
                        acc += _sce(t, v, t(0))
            loss[i] = acc
    return loss, obj, match


# Paddle 2.6.2 CPU registrations of the grad kernels (corpus phi_kernels.json)
FLOATS = ["float32", "float64"]


_ANY = {"dtype": DataType.ALL_DTYPE}  # labels and masks keep their own dtypes


# -- yolov3_loss ------------------------------------------------------------------------------

def _sce_grad(t, x, label):
    """SigmoidCrossEntropyGrad<T>: 1.0 / (1.0 + exp(-x)) - label, exp in T, the rest in double,
    returned as T."""
    return t(1.0 / (1.0 + float(np.exp(-t(x)))) - float(label))


@register_kernel("yolo_loss_grad", "CPU", dtypes=FLOATS,
                 input_defs={"gt_label": _ANY, "gt_match_mask": _ANY})
def yolo_loss_grad(ctx, x: Tensor, gt_box: Tensor, gt_label: Tensor, gt_score: Tensor | None,
                   objectness_mask: Tensor, gt_match_mask: Tensor, loss_grad: Tensor,
                   anchors: list[int], anchor_mask: list[int], class_num: int,
                   ignore_thresh: float, downsample_ratio: int, use_label_smooth: bool,
                   scale_x_y: float) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """X@GRAD only (Paddle writes no GTBox / GTLabel / GTScore gradient): for each matched
    ground truth the location entries (sigmoid CE for x / y, sign for w / h, weighted by
    (2 - w h) * score) and the class entries of its cell are SET (a later box overwrites),
    then every objectness entry: positive (mask > 1e-5) or negative (mask > -0.5), ignored
    ones 0.  Each term times the image's Loss@GRAD; scale_x_y is not differentiated."""
    t = x.dtype.type
    n, _, h, w = x.shape
    mask_num = len(anchor_mask)
    b = gt_match_mask.shape[1]
    input_size = downsample_ratio * h
    xr = np.asarray(x).reshape(n, mask_num, 5 + class_num, h, w)
    dx = np.zeros_like(xr)
    gtb = np.asarray(gt_box)
    labels = np.asarray(gt_label).astype(np.int64)
    match = np.asarray(gt_match_mask)
    score = np.ones((n, b), x.dtype) if gt_score is None else np.asarray(gt_score)
    dloss = np.asarray(loss_grad).reshape(-1)
    pos, neg = t(1), t(0)
    if use_label_smooth:
        smooth = min(1.0 / float(t(class_num)), 1.0 / 40)
        pos, neg = t(1.0 - smooth), t(smooth)
    with quiet(np):
        for i in range(n):
            for k in range(b):
                m = int(match[i, k])
                if m < 0:
                    continue
                gx, gy, gw, gh = (t(v) for v in gtb[i, k])
                sc, g = t(score[i, k]), t(dloss[i])
                gi, gj = int(gx * t(w)), int(gy * t(h))
                a = anchor_mask[m]
                p, d = xr[i, m, :, gj, gi], dx[i, m, :, gj, gi]
                tw = np.log(gw * t(input_size) / t(anchors[2 * a]))
                th = np.log(gh * t(input_size) / t(anchors[2 * a + 1]))
                wt = t((2.0 - float(gw * gh)) * float(sc))
                d[0] = _sce_grad(t, p[0], gx * t(h) - t(gi)) * wt * g
                d[1] = _sce_grad(t, p[1], gy * t(h) - t(gj)) * wt * g
                d[2] = t(1.0 if p[2] > tw else -1.0) * wt * g
                d[3] = t(1.0 if p[3] > th else -1.0) * wt * g
                for c in range(class_num):
                    d[5 + c] = _sce_grad(t, p[5 + c], pos if c == labels[i, k] else neg) * sc * g
            obj = np.asarray(objectness_mask)[i]
            for j, y, z in np.ndindex(mask_num, h, w):
                o, v = obj[j, y, z], xr[i, j, 4, y, z]
                if o > 1e-5:
                    dx[i, j, 4, y, z] = _sce_grad(t, v, t(1)) * o * t(dloss[i])
                elif o > -0.5:
                    dx[i, j, 4, y, z] = _sce_grad(t, v, t(0)) * t(dloss[i])
    return dx.reshape(x.shape), None, None, None
