"""Region-proposal ops of two-stage detectors (Paddle's paddle/phi/kernels/cpu/
{generate_proposals,distribute_fpn_proposals}_kernel.cc, funcs/detection/bbox_util.h):
generate_proposals (the legacy op generate_proposals_v2) and distribute_fpn_proposals."""

from __future__ import annotations

import math

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor, Tensor
from phi.core.lod import from_lengths
from phi.core.registry import register_kernel
from phi.kernels.nms import greedy_nms

__all__ = ["distribute_fpn_proposals", "generate_proposals", "proposals_one_image"]

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


@register_kernel("distribute_fpn_proposals", "CPU", dtypes=["float32", "float64"],
                 input_defs={"rois_num": {"dtype": DataType.ALL_DTYPE}},
                 output_defs={1: {"dtype": DataType.INT32}, 2: {"dtype": DataType.INT32}})
def distribute_fpn_proposals(ctx, fpn_rois: LoDTensor, rois_num: Tensor | None, min_level: int,
                             max_level: int, refer_level: int, refer_scale: int,
                             pixel_offset: bool
                             ) -> tuple[list[LoDTensor], list[Tensor], Tensor]:
    """Each RoI to level floor(log2(sqrt(area) / refer_scale + 1e-6) + refer_level) clipped to
    [min_level, max_level]; per level the RoIs in their order (LoD per image), the per-image
    counts (with RoisNum) and RestoreIndex (each RoI's row in the levels' concatenation)."""
    rois = fpn_rois.data
    if rois.ndim != 2 or rois.shape[1] != 4:
        raise InvalidArgument(f"distribute_fpn_proposals: FpnRois must be [N, 4], got "
                              f"{list(rois.shape)}.")
    if rois_num is not None:
        counts = np.asarray(rois_num).reshape(-1).astype(np.int64)
    elif fpn_rois.lod:
        counts = np.diff(np.asarray(fpn_rois.lod[-1], np.int64))
    else:
        counts = np.asarray([rois.shape[0]], np.int64)
    t = rois.dtype.type
    offset = t(1) if pixel_offset else t(0)
    w = rois[:, 2] - rois[:, 0] + offset
    h = rois[:, 3] - rois[:, 1] + offset
    bad = (rois[:, 2] < rois[:, 0]) | (rois[:, 3] < rois[:, 1])
    area = np.where(bad, t(0), w * h)
    scale = np.sqrt(area)
    with np.errstate(divide="ignore"):
        lvl = np.floor(np.log2(scale / t(refer_scale) + t(1e-6)) + t(refer_level))
    lvl = np.clip(lvl, min_level, max_level).astype(np.int64)
    image = np.repeat(np.arange(counts.size), counts)
    levels = range(min_level, max_level + 1)
    outs, nums, order = [], [], []
    for level in levels:
        sel = np.nonzero(lvl == level)[0]
        order.extend(sel.tolist())
        per_image = np.bincount(image[sel], minlength=counts.size).astype(np.int64)
        lod = from_lengths([per_image])
        outs.append(ctx.lod_tensor(rois[sel], lod))
        nums.append(per_image.astype(np.int32))
    restore = np.empty(len(order), np.int32)
    restore[np.asarray(order, np.int64)] = np.arange(len(order), dtype=np.int32)
    return outs, (nums if rois_num is not None else None), restore.reshape(-1, 1)
