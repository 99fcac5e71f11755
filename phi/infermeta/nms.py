"""InferMeta of the NMS family: the kept count is decided by the kernel (-1)."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import set_meta

__all__ = ["matrix_nms_infer_meta", "multiclass_nms3_infer_meta", "nms_infer_meta"]


def _check(op, bboxes, scores, polygons: bool = False) -> None:
    if len(scores.dims) not in (2, 3) or len(bboxes.dims) != 3:
        raise InvalidArgument(f"{op}: BBoxes must be 3-D and Scores 2-D or 3-D, got dims "
                              f"{list(bboxes.dims)} and {list(scores.dims)}.")
    if polygons and bboxes.dims[2] not in (4, 8, 16, 24, 32, -1):
        raise InvalidArgument(f"{op}: the last dim of BBoxes must be 4 (a box) or 8 / 16 / 24 / "
                              f"32 (a polygon's coordinates), got {list(bboxes.dims)}.")
    if not polygons and bboxes.dims[2] not in (4, -1):
        raise InvalidArgument(f"{op}: the last dim of BBoxes must be 4, got "
                              f"{list(bboxes.dims)}.")


def multiclass_nms3_infer_meta(bboxes, scores, rois_num, score_threshold, nms_top_k,
                               keep_top_k, nms_threshold, normalized, nms_eta,
                               background_label, out, index, nms_rois_num) -> None:
    """Out [-1, 6], Index [-1, 1] int32, NmsRoisNum [-1] int32."""
    _check("multiclass_nms3", bboxes, scores, polygons=True)
    box = bboxes.dims[2]
    set_meta(out, (-1, box + 2 if box > 0 else -1), bboxes.dtype)
    set_meta(index, (-1, 1), DataType.INT32)
    set_meta(nms_rois_num, (-1,), DataType.INT32)


def matrix_nms_infer_meta(bboxes, scores, score_threshold, nms_top_k, keep_top_k,
                          post_threshold, use_gaussian, gaussian_sigma, background_label,
                          normalized, out, index, roisnum) -> None:
    """Out [-1, 6], Index [-1, 1] int32, RoisNum [-1] int32."""
    _check("matrix_nms", bboxes, scores)
    set_meta(out, (-1, 6), bboxes.dtype)
    set_meta(index, (-1, 1), DataType.INT32)
    set_meta(roisnum, (-1,), DataType.INT32)


def nms_infer_meta(boxes, threshold, out) -> None:
    """[-1] int64 indices."""
    if len(boxes.dims) != 2 or boxes.dims[1] not in (4, -1):
        raise InvalidArgument(f"nms: Boxes must be [N, 4], got dims {list(boxes.dims)}.")
    set_meta(out, (-1,), DataType.INT64)
