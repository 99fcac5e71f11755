"""yolo_loss (Paddle's paddle/phi/kernels/cpu/yolo_loss_kernel.cc, forward): YOLOv3's loss per
image, the objectness mask and each ground-truth box's matched anchor."""

from __future__ import annotations

import math

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

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
