"""InferMeta of the RoI ops."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import set_meta

__all__ = ["psroi_pool_infer_meta", "roi_align_infer_meta", "roi_pool_infer_meta"]


def _check(op, x, boxes, pooled_height, pooled_width) -> None:
    if len(x.dims) != 4:
        raise InvalidArgument(f"{op}: X must be 4-D (NCHW), got dims {list(x.dims)}.")
    if len(boxes.dims) != 2 or boxes.dims[1] not in (4, -1):
        raise InvalidArgument(f"{op}: ROIs must be [num_rois, 4], got dims "
                              f"{list(boxes.dims)}.")
    if pooled_height <= 0 or pooled_width <= 0:
        raise InvalidArgument(f"{op}: pooled_height and pooled_width must be positive, got "
                              f"{pooled_height} and {pooled_width}.")


def roi_align_infer_meta(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale,
                         sampling_ratio, aligned, out) -> None:
    """[num_rois, C, pooled_height, pooled_width]."""
    _check("roi_align", x, boxes, pooled_height, pooled_width)
    set_meta(out, (boxes.dims[0], x.dims[1], pooled_height, pooled_width), x.dtype)


def roi_pool_infer_meta(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale, out,
                        arg_max) -> None:
    """[num_rois, C, pooled_height, pooled_width]; Argmax int64 alike."""
    _check("roi_pool", x, boxes, pooled_height, pooled_width)
    dims = (boxes.dims[0], x.dims[1], pooled_height, pooled_width)
    set_meta(out, dims, x.dtype)
    set_meta(arg_max, dims, DataType.INT64)


def psroi_pool_infer_meta(x, boxes, boxes_num, pooled_height, pooled_width, output_channels,
                          spatial_scale, out) -> None:
    """[num_rois, output_channels, pooled_height, pooled_width]."""
    _check("psroi_pool", x, boxes, pooled_height, pooled_width)
    set_meta(out, (boxes.dims[0], output_channels, pooled_height, pooled_width), x.dtype)
