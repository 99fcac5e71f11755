"""The ``prior_box`` kernel."""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["expand_aspect_ratios", "prior_box"]


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
