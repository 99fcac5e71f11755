"""The ``distribute_fpn_proposals`` kernel."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor, Tensor
from phi.core.lod import from_lengths
from phi.core.registry import register_kernel

__all__ = ["distribute_fpn_proposals"]


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
