"""The ``box_coder`` kernel."""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["box_coder"]


_F = ["float32", "float64"]


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
