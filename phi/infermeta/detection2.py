"""InferMeta of the detection ops of issue 12 item 2's second batch (yolo_loss)."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import set_meta

__all__ = ["yolo_loss_infer_meta"]


def yolo_loss_infer_meta(x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num,
                         ignore_thresh, downsample_ratio, use_label_smooth, scale_x_y, loss,
                         objectness_mask, gt_match_mask) -> None:
    """Loss [N], ObjectnessMask [N, len(anchor_mask), H, W], GTMatchMask [N, B] int32."""
    op = "yolov3_loss"
    if len(x.dims) != 4:
        raise InvalidArgument(f"{op}: X must be 4-D (NCHW), got dims {list(x.dims)}.")
    if len(gt_box.dims) != 3 or gt_box.dims[2] not in (4, -1):
        raise InvalidArgument(f"{op}: GTBox must be [N, B, 4], got dims {list(gt_box.dims)}.")
    if len(gt_label.dims) != 2:
        raise InvalidArgument(f"{op}: GTLabel must be 2-D [N, B], got dims "
                              f"{list(gt_label.dims)}.")
    if len(anchors) % 2 or not anchors:
        raise InvalidArgument(f"{op}: anchors must hold (w, h) pairs, got {list(anchors)}.")
    if not anchor_mask:
        raise InvalidArgument(f"{op}: anchor_mask must not be empty.")
    if class_num <= 0:
        raise InvalidArgument(f"{op}: class_num must be positive, got {class_num}.")
    mask_num, n_an = len(anchor_mask), len(anchors) // 2
    if any(m < 0 or m >= n_an for m in anchor_mask):
        raise InvalidArgument(f"{op}: anchor_mask entries must lie in [0, {n_an}), got "
                              f"{list(anchor_mask)}.")
    c = x.dims[1]
    if c != -1 and c != mask_num * (5 + class_num):
        raise InvalidArgument(f"{op}: X's channels must be len(anchor_mask) * (5 + class_num) = "
                              f"{mask_num * (5 + class_num)}, got {c}.")
    if -1 not in (x.dims[2], x.dims[3]) and x.dims[2] != x.dims[3]:
        raise InvalidArgument(f"{op}: X's height and width must be equal, got {list(x.dims)}.")
    n, b = x.dims[0], gt_box.dims[1]
    set_meta(loss, (n,), x.dtype)
    set_meta(objectness_mask, (n, mask_num, x.dims[2], x.dims[3]), x.dtype)
    set_meta(gt_match_mask, (n, b), DataType.INT32)
