"""The nms kernel (Paddle's paddle/phi/kernels/cpu/nms_kernel.cc): plain NMS over boxes in the
given order.  Its siblings are in multiclass_nms3.py (per-class greedy NMS, whose
``multiclass_nms_batch`` the fluid kernels of multiclass_nms / multiclass_nms2 share) and
matrix_nms.py; box overlap and greedy NMS are in phi.kernels.funcs.detection."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.detection import jaccard

__all__ = ["nms"]


_F = ["float32", "float64"]


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
