"""InferMeta of prior_box, box_coder and yolo_box."""

from __future__ import annotations

from phi.core.errors import InvalidArgument
from phi.infermeta._utils import set_meta

__all__ = ["box_coder_infer_meta", "prior_box_infer_meta", "yolo_box_infer_meta"]


def prior_box_infer_meta(input, image, min_sizes, max_sizes, aspect_ratios, variances, flip,
                         clip, step_w, step_h, offset, min_max_aspect_ratios_order, out,
                         var) -> None:
    """[H, W, num_priors, 4] for both outputs."""
    from phi.kernels.prior_box import expand_aspect_ratios

    if len(input.dims) != 4:
        raise InvalidArgument(f"prior_box: Input must be 4-D, got dims {list(input.dims)}.")
    if len(variances) != 4:
        raise InvalidArgument(f"prior_box: variances must hold 4 values, got {len(variances)}.")
    n = len(expand_aspect_ratios(aspect_ratios, flip)) * len(min_sizes) + len(max_sizes)
    dims = (input.dims[2], input.dims[3], n, 4)
    set_meta(out, dims, input.dtype)
    set_meta(var, dims, input.dtype)


def box_coder_infer_meta(prior_box, prior_box_var, target_box, code_type, box_normalized,
                         axis, variance, output_box) -> None:
    """encode: [N, M, 4]; decode: TargetBox's dims."""
    if len(prior_box.dims) != 2 or prior_box.dims[1] not in (4, -1):
        raise InvalidArgument(f"box_coder: PriorBox must be [M, 4], got dims "
                              f"{list(prior_box.dims)}.")
    if prior_box_var is not None and (len(prior_box_var.dims) not in (1, 2)
                                      or prior_box_var.dims[-1] not in (4, -1)):
        raise InvalidArgument(f"box_coder: PriorBoxVar must be [M, 4] or [4], got dims "
                              f"{list(prior_box_var.dims)}.")
    rank = 2 if code_type == "encode_center_size" else 3
    if len(target_box.dims) != rank or target_box.dims[-1] not in (4, -1):
        raise InvalidArgument(f"box_coder: TargetBox must be {rank}-D with a last dim of 4 for "
                              f"{code_type}, got dims {list(target_box.dims)}.")
    if code_type == "encode_center_size":
        dims = (target_box.dims[0], prior_box.dims[0], 4)
    else:
        dims = tuple(target_box.dims)
    set_meta(output_box, dims, target_box.dtype)


def yolo_box_infer_meta(x, img_size, anchors, class_num, conf_thresh, downsample_ratio,
                        clip_bbox, scale_x_y, iou_aware, iou_aware_factor, boxes,
                        scores) -> None:
    """[N, anchors * H * W, 4] and [N, anchors * H * W, class_num]."""
    if len(x.dims) != 4:
        raise InvalidArgument(f"yolo_box: Input(X) must be 4-D, got dims {list(x.dims)}.")
    if class_num <= 0:
        raise InvalidArgument(f"yolo_box: class_num must be positive, got {class_num}.")
    n, _, h, w = x.dims
    a = len(anchors) // 2
    box_num = -1 if -1 in (h, w) else a * h * w
    set_meta(boxes, (n, box_num, 4), x.dtype)
    set_meta(scores, (n, box_num, class_num), x.dtype)
