"""InferMeta of generate_proposals and distribute_fpn_proposals (counts decided at run time)."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import set_meta

__all__ = ["distribute_fpn_proposals_infer_meta", "generate_proposals_infer_meta"]


def generate_proposals_infer_meta(scores, bbox_deltas, im_shape, anchors, variances,
                                  pre_nms_top_n, post_nms_top_n, nms_thresh, min_size, eta,
                                  pixel_offset, rpn_rois, rpn_roi_probs, rpn_rois_num) -> None:
    """RpnRois [-1, 4], RpnRoiProbs [-1, 1], RpnRoisNum [-1] int32."""
    if len(scores.dims) != 4 or len(bbox_deltas.dims) != 4:
        raise InvalidArgument(f"generate_proposals: Scores and BboxDeltas must be 4-D, got "
                              f"{list(scores.dims)} and {list(bbox_deltas.dims)}.")
    set_meta(rpn_rois, (-1, 4), scores.dtype)
    set_meta(rpn_roi_probs, (-1, 1), scores.dtype)
    set_meta(rpn_rois_num, (-1,), DataType.INT32)


def distribute_fpn_proposals_infer_meta(fpn_rois, rois_num, min_level, max_level, refer_level,
                                        refer_scale, pixel_offset, multi_fpn_rois: list,
                                        multi_level_rois_num: list, restore_index) -> None:
    """One [-1, 4] output per level, int32 counts per level, RestoreIndex [-1, 1] int32."""
    if len(fpn_rois.dims) != 2:
        raise InvalidArgument(f"distribute_fpn_proposals: FpnRois must be 2-D, got "
                              f"{list(fpn_rois.dims)}.")
    if max_level < min_level:
        raise InvalidArgument(f"distribute_fpn_proposals: max_level ({max_level}) must not be "
                              f"below min_level ({min_level}).")
    for m in multi_fpn_rois or ():
        set_meta(m, (-1, 4), fpn_rois.dtype)
    for m in multi_level_rois_num or ():
        set_meta(m, (-1,), DataType.INT32)
    set_meta(restore_index, (-1, 1), DataType.INT32)
