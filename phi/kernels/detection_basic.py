"""Detection kernels Paddle 2.6.2 runs as phi kernels: prior_box, box_coder, yolo_box (Paddle's
paddle/phi/kernels/cpu/{prior_box,box_coder,yolo_box}_kernel.cc), with Paddle's mix of float
and double arithmetic where it matters."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["box_coder", "expand_aspect_ratios", "prior_box", "yolo_box"]

_F = ["float32", "float64"]


def expand_aspect_ratios(ratios, flip: bool) -> list[float]:
    """1, then each new ratio (and 1 / ratio with flip), duplicates (within 1e-6) skipped."""
    out = [1.0]
    for ar in ratios:
        ar = float(np.float32(ar))
        if any(abs(ar - o) < 1e-6 for o in out):
            continue
        out.append(ar)
        if flip:
            out.append(float(np.float32(1.0) / np.float32(ar)))
    return out


@register_kernel("prior_box", "CPU", dtypes=_F)
def prior_box(ctx, input: Tensor, image: Tensor, min_sizes: list[float], max_sizes: list[float],
              aspect_ratios: list[float], variances: list[float], flip: bool, clip: bool,
              step_w: float, step_h: float, offset: float, min_max_aspect_ratios_order: bool
              ) -> tuple[Tensor, Tensor]:
    """SSD prior boxes per feature-map cell, normalized by the image size, and their variances."""
    if input.ndim != 4 or image.ndim != 4:
        raise InvalidArgument(f"prior_box: Input and Image must be 4-D (NCHW), got dims "
                              f"{list(input.shape)} and {list(image.shape)}.")
    if max_sizes and len(max_sizes) != len(min_sizes):
        raise InvalidArgument(f"prior_box: the number of max_sizes ({len(max_sizes)}) must "
                              f"equal the number of min_sizes ({len(min_sizes)}).")
    t = input.dtype.type
    img_h, img_w = image.shape[2], image.shape[3]
    fh, fw = input.shape[2], input.shape[3]
    if step_w == 0 or step_h == 0:
        sw, sh = t(img_w) / t(fw), t(img_h) / t(fh)
    else:
        sw, sh = t(step_w), t(step_h)
    ratios = expand_aspect_ratios(aspect_ratios, flip)
    sizes = []  # (half width, half height) per prior, in double as Paddle computes them
    for s, mn in enumerate(min_sizes):
        mn = float(np.float32(mn))
        square = [(mn / 2.0, mn / 2.0)]
        big = []
        if max_sizes:
            mx = float(np.float32(max_sizes[s]))
            big = [(np.sqrt(mn * mx) / 2.0,) * 2]
        if min_max_aspect_ratios_order:
            sizes += square + big + [(mn * np.sqrt(ar) / 2.0, mn / np.sqrt(ar) / 2.0)
                                     for ar in ratios if abs(ar - 1.0) >= 1e-6]
        else:
            sizes += [(mn * np.sqrt(ar) / 2.0, mn / np.sqrt(ar) / 2.0) for ar in ratios] + big
    half = np.array(sizes, np.float64).reshape(-1, 2)
    cx = ((np.arange(fw, dtype=input.dtype) + t(np.float32(offset))) * sw).astype(np.float64)
    cy = ((np.arange(fh, dtype=input.dtype) + t(np.float32(offset))) * sh).astype(np.float64)
    bw, bh = half[:, 0], half[:, 1]
    boxes = np.stack(np.broadcast_arrays(
        (cx[None, :, None] - bw) / img_w, (cy[:, None, None] - bh) / img_h,
        (cx[None, :, None] + bw) / img_w, (cy[:, None, None] + bh) / img_h), axis=-1)
    boxes = boxes.astype(input.dtype)
    if clip:
        boxes = np.clip(boxes, t(0), t(1))
    var = np.broadcast_to(np.asarray(variances, np.float32).astype(input.dtype),
                          boxes.shape).copy()
    return boxes, var


@register_kernel("box_coder", "CPU", dtypes=_F)
def box_coder(ctx, prior_box: Tensor, prior_box_var: Tensor | None, target_box: Tensor,
              code_type: str, box_normalized: bool, axis: int, variance: list[float]) -> Tensor:
    """encode_center_size: [N, M, 4] offsets of targets to priors; decode_center_size: boxes
    from offsets, priors along ``axis`` of TargetBox.  Variances from PriorBoxVar, else the
    attribute, else 1."""
    t = target_box.dtype.type
    pix = t(0) if box_normalized else t(1)
    p = prior_box.reshape(-1, 4) if prior_box.size else prior_box.reshape(0, 4)
    pw = p[:, 2] - p[:, 0] + pix
    ph = p[:, 3] - p[:, 1] + pix
    pcx = p[:, 0] + pw / t(2)
    pcy = p[:, 1] + ph / t(2)
    if prior_box_var is not None:
        var = prior_box_var.reshape(-1, 4).astype(target_box.dtype)
    elif variance:
        if len(variance) != 4:
            raise InvalidArgument(f"box_coder: Size of attribute 'variance' must be 4, got "
                                  f"{len(variance)}.")
        var = np.asarray(variance, np.float32).astype(target_box.dtype)[None, :]
    else:
        var = None
    if code_type == "encode_center_size":
        tb = target_box.reshape(-1, 4)
        tcx = ((tb[:, 2] + tb[:, 0]) / t(2))[:, None]
        tcy = ((tb[:, 3] + tb[:, 1]) / t(2))[:, None]
        tw = (tb[:, 2] - tb[:, 0] + pix)[:, None]
        th = (tb[:, 3] - tb[:, 1] + pix)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.stack([(tcx - pcx) / pw, (tcy - pcy) / ph, np.log(np.abs(tw / pw)),
                            np.log(np.abs(th / ph))], axis=-1)
            if var is not None:
                out = out / (var[None, :, :] if var.shape[0] > 1 else var)
        return out.astype(target_box.dtype)
    if code_type != "decode_center_size":
        raise InvalidArgument(f"box_coder: code_type must be encode_center_size or "
                              f"decode_center_size, got {code_type!r}.")
    if target_box.ndim != 3:
        raise InvalidArgument(f"box_coder: decoding needs a 3-D TargetBox, got dims "
                              f"{list(target_box.shape)}.")
    if axis not in (0, 1):
        raise InvalidArgument(f"box_coder: axis must be 0 or 1, got {axis}.")
    shape = (1, -1) if axis == 0 else (-1, 1)  # priors along TargetBox's axis 1 (or 0)
    g = lambda a: a.reshape(shape)  # noqa: E731
    if var is None:
        v = [t(1)] * 4
    elif var.shape[0] == 1:
        v = [var[0, k] for k in range(4)]
    else:
        v = [g(var[:, k]) for k in range(4)]
    d = target_box
    tcx = v[0] * d[..., 0] * g(pw) + g(pcx)
    tcy = v[1] * d[..., 1] * g(ph) + g(pcy)
    tw = np.exp(v[2] * d[..., 2]) * g(pw)
    th = np.exp(v[3] * d[..., 3]) * g(ph)
    out = np.stack([tcx - tw / t(2), tcy - th / t(2), tcx + tw / t(2) - pix,
                    tcy + th / t(2) - pix], axis=-1)
    return out.astype(target_box.dtype)


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
