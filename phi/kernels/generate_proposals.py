"""The ``generate_proposals`` kernel."""

from __future__ import annotations

import math

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.detection import greedy_nms

__all__ = ["generate_proposals", "proposals_one_image"]


_BBOX_CLIP = math.log(1000.0 / 16.0)  # Paddle's kBBoxClipDefault


def _decode(anchors, deltas, variances, offset, t):
    aw = anchors[:, 2] - anchors[:, 0] + offset
    ah = anchors[:, 3] - anchors[:, 1] + offset
    acx = anchors[:, 0] + t(0.5) * aw
    acy = anchors[:, 1] + t(0.5) * ah
    clip = t(_BBOX_CLIP)
    cx = variances[:, 0] * deltas[:, 0] * aw + acx
    cy = variances[:, 1] * deltas[:, 1] * ah + acy
    w = np.exp(np.minimum(variances[:, 2] * deltas[:, 2], clip)) * aw
    h = np.exp(np.minimum(variances[:, 3] * deltas[:, 3], clip)) * ah
    return np.stack([cx - w / t(2), cy - h / t(2), cx + w / t(2) - offset,
                     cy + h / t(2) - offset], axis=1).astype(anchors.dtype)


def proposals_one_image(im_shape, anchors, variances, deltas, scores, pre_n, post_n,
                        nms_thresh, min_size, eta, pixel_offset, im_scale=None):
    """One image's proposals (boxes, probs [K, 1]); ``im_scale`` (generate_proposals v1) makes
    min_size apply to the boxes' size in the original image."""
    t = anchors.dtype.type
    offset = t(1) if pixel_offset else t(0)
    order = np.argsort(-scores, kind="stable")
    if 0 < pre_n < order.size:
        order = order[:pre_n]
    s = scores[order]
    boxes = _decode(anchors[order], deltas[order], variances[order], offset, t)
    im_h, im_w = t(im_shape[0]), t(im_shape[1])
    boxes[:, 0::2] = np.maximum(np.minimum(boxes[:, 0::2], im_w - offset), t(0))
    boxes[:, 1::2] = np.maximum(np.minimum(boxes[:, 1::2], im_h - offset), t(0))
    ws = boxes[:, 2] - boxes[:, 0] + offset
    hs = boxes[:, 3] - boxes[:, 1] + offset
    ms = max(t(np.float32(min_size)), t(1))
    if im_scale is not None:  # v1: the size in the original image
        ws_o = (boxes[:, 2] - boxes[:, 0]) / t(im_scale) + t(1)
        hs_o = (boxes[:, 3] - boxes[:, 1]) / t(im_scale) + t(1)
        keep = (ws_o >= ms) & (hs_o >= ms)
    else:
        keep = (ws >= ms) & (hs >= ms)
    if pixel_offset:
        keep &= (boxes[:, 0] + ws / t(2) <= im_w) & (boxes[:, 1] + hs / t(2) <= im_h)
    idx = np.nonzero(keep)[0]
    if idx.size == 0:
        return np.zeros((1, 4), anchors.dtype), np.zeros((1, 1), scores.dtype)
    boxes, s = boxes[idx], s[idx]
    if nms_thresh <= 0:
        return boxes, s.reshape(-1, 1)
    order = np.argsort(-s, kind="stable")
    kept = greedy_nms(boxes[order], t(np.float32(nms_thresh)), t(np.float32(eta)),
                      not pixel_offset)
    selected = order[kept].tolist()
    if 0 < post_n < len(selected):
        selected = selected[:post_n]
    return boxes[selected], s[selected].reshape(-1, 1)


@register_kernel("generate_proposals", "CPU", dtypes=["float32", "float64"],
                 output_defs={2: {"dtype": DataType.INT32}})
def generate_proposals(ctx, scores: Tensor, bbox_deltas: Tensor, im_shape: Tensor,
                       anchors: Tensor, variances: Tensor, pre_nms_top_n: int,
                       post_nms_top_n: int, nms_thresh: float, min_size: float, eta: float,
                       pixel_offset: bool) -> tuple[Tensor, Tensor, Tensor]:
    """RPN proposals per image: the pre_nms_topN best anchors decoded, clipped to the image,
    small boxes dropped, NMS, post_nms_topN kept; (RpnRois, RpnRoiProbs, RpnRoisNum)."""
    if scores.ndim != 4 or bbox_deltas.ndim != 4 or bbox_deltas.shape[1] != 4 * scores.shape[1]:
        raise InvalidArgument(f"generate_proposals: Scores [N, A, H, W] and BboxDeltas "
                              f"[N, 4A, H, W] expected, got {list(scores.shape)} and "
                              f"{list(bbox_deltas.shape)}.")
    n, a, h, w = scores.shape
    anc = anchors.reshape(-1, 4)
    var = variances.reshape(-1, 4)
    if anc.shape[0] != a * h * w or var.shape[0] != anc.shape[0]:
        raise InvalidArgument(f"generate_proposals: Anchors and Variances must hold H * W * A "
                              f"= {a * h * w} boxes, got {anc.shape[0]} and {var.shape[0]}.")
    if im_shape.shape[0] != n:
        raise InvalidArgument(f"generate_proposals: ImShape holds {im_shape.shape[0]} images, "
                              f"the batch is {n}.")
    rois, probs, nums = [], [], []
    for i in range(n):
        s = np.transpose(scores[i], (1, 2, 0)).reshape(-1)
        d = np.transpose(bbox_deltas[i], (1, 2, 0)).reshape(-1, 4)
        b, p = proposals_one_image(im_shape[i], anc, var, d, s, pre_nms_top_n,
                                    post_nms_top_n, nms_thresh, min_size, eta, pixel_offset)
        rois.append(b)
        probs.append(p)
        nums.append(b.shape[0])
    return (np.concatenate(rois).astype(scores.dtype), np.concatenate(probs).astype(scores.dtype),
            np.asarray(nums, np.int32))
