"""The ``yolo_box`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["yolo_box"]


_F = ["float32", "float64"]


def _sigmoid(x):
    t = x.dtype.type
    with np.errstate(over="ignore"):
        return t(1) / (t(1) + np.exp(-x))


@register_kernel("yolo_box", "CPU", dtypes=_F, input_defs={"img_size": {"dtype":
                                                                      DataType.ALL_DTYPE}})
def yolo_box(ctx, x: Tensor, img_size: Tensor, anchors: list[int], class_num: int,
             conf_thresh: float, downsample_ratio: int, clip_bbox: bool, scale_x_y: float,
             iou_aware: bool, iou_aware_factor: float) -> tuple[Tensor, Tensor]:
    """YOLOv3 head decoding: boxes [N, anchors * H * W, 4] in image pixels and scores
    [N, anchors * H * W, class_num]; cells whose confidence is below conf_thresh stay 0."""
    if x.ndim != 4:
        raise InvalidArgument(f"yolo_box: Input(X) must be 4-D, got dims {list(x.shape)}.")
    an_num = len(anchors) // 2
    if an_num == 0 or len(anchors) % 2:
        raise InvalidArgument(f"yolo_box: anchors must hold (w, h) pairs, got {anchors}.")
    n, c, h, w = x.shape
    per = 5 + class_num
    if c != an_num * per + (an_num if iou_aware else 0):
        extra = ", + anchors with iou_aware" if iou_aware else ""
        raise InvalidArgument(f"yolo_box: Input(X) dim[1] should be anchors x (5 + class_num)"
                              f"{extra}, got {c}.")
    if img_size.ndim != 2 or img_size.shape != (n, 2):
        raise InvalidArgument(f"yolo_box: ImgSize must be [{n}, 2], got {list(img_size.shape)}.")
    t = x.dtype.type
    scale = t(np.float32(scale_x_y))
    bias = t(np.float32(-0.5) * (np.float32(scale_x_y) - np.float32(1)))
    if iou_aware:
        iou = x[:, :an_num]
        body = x[:, an_num:]
    else:
        iou, body = None, x
    body = body.reshape(n, an_num, per, h, w)
    conf = _sigmoid(body[:, :, 4])
    if iou_aware:
        f = t(np.float32(iou_aware_factor))
        conf = (conf ** (t(1) - f) * _sigmoid(iou) ** f).astype(x.dtype)
    keep = conf >= t(np.float32(conf_thresh))
    img_h = img_size[:, 0].astype(np.int64).reshape(n, 1, 1, 1)
    img_w = img_size[:, 1].astype(np.int64).reshape(n, 1, 1, 1)
    in_h, in_w = downsample_ratio * h, downsample_ratio * w
    cols = np.arange(w).reshape(1, 1, 1, w)
    rows = np.arange(h).reshape(1, 1, h, 1)
    aw = np.asarray(anchors[0::2], np.int64).reshape(1, an_num, 1, 1)
    ah = np.asarray(anchors[1::2], np.int64).reshape(1, an_num, 1, 1)
    with np.errstate(over="ignore"):
        bx = (cols + _sigmoid(body[:, :, 0]) * scale + bias) * img_w.astype(x.dtype) / t(w)
        by = (rows + _sigmoid(body[:, :, 1]) * scale + bias) * img_h.astype(x.dtype) / t(h)
        bw = np.exp(body[:, :, 2]) * aw.astype(x.dtype) * img_w.astype(x.dtype) / t(in_w)
        bh = np.exp(body[:, :, 3]) * ah.astype(x.dtype) * img_h.astype(x.dtype) / t(in_h)
    boxes = np.stack([bx - bw / t(2), by - bh / t(2), bx + bw / t(2), by + bh / t(2)],
                     axis=-1).astype(x.dtype)
    if clip_bbox:
        boxes[..., 0] = np.maximum(boxes[..., 0], t(0))
        boxes[..., 1] = np.maximum(boxes[..., 1], t(0))
        boxes[..., 2] = np.minimum(boxes[..., 2], (img_w - 1).astype(x.dtype))
        boxes[..., 3] = np.minimum(boxes[..., 3], (img_h - 1).astype(x.dtype))
    scores = (conf[:, :, None] * _sigmoid(body[:, :, 5:])).astype(x.dtype)  # [n, a, C, h, w]
    boxes = np.where(keep[..., None], boxes, t(0))
    scores = np.where(keep[:, :, None], scores, t(0))
    return (boxes.reshape(n, an_num * h * w, 4),
            np.moveaxis(scores, 2, -1).reshape(n, an_num * h * w, class_num))
