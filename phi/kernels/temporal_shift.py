"""The ``temporal_shift`` and ``temporal_shift_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import owned
from phi.kernels.funcs.manipulation import check_4d
from phi.kernels.funcs.vision import transposed

__all__ = ["temporal_shift"]


SHUFFLE_DTYPES = ["float32", "float64"]


@register_kernel("temporal_shift", ("CPU", "GPU"), dtypes=SHUFFLE_DTYPES)
def temporal_shift(ctx, x: Tensor, seg_num: int, shift_ratio: float,
                   data_format: str) -> Tensor:
    """Per segment of ``seg_num`` frames: the first C*ratio channels take the previous frame,
    the next C*ratio the following one (zeros past the ends), the rest stay."""
    xp = ctx.xp
    last = check_4d(x, data_format, "temporal_shift")
    if seg_num <= 0 or x.shape[0] % seg_num:
        raise InvalidArgument(f"Input(X) dimension[0] should be divided exactly by "
                              f"Attr(seg_num), but received X dimension[0]({x.shape[0]}), "
                              f"seg_num({seg_num})")
    y = x if not last else xp.permute_dims(x, (0, 3, 1, 2))
    nt, c, h, w = y.shape
    # static_cast<int>(c * shift_ratio): int times float, in float
    c1 = int(np.float32(c) * np.float32(shift_ratio))
    c2 = int(np.float32(c * 2) * np.float32(shift_ratio))
    v = xp.reshape(y, (nt // seg_num, seg_num, c, h, w))
    out = xp.zeros_like(v)
    out[:, 1:, :c1] = v[:, :-1, :c1]
    out[:, :-1, c1:c2] = v[:, 1:, c1:c2]
    out[:, :, c2:] = v[:, :, c2:]
    out = xp.reshape(out, (nt, c, h, w))
    return owned(xp, xp.permute_dims(out, (0, 2, 3, 1)) if last else out)


FLOATS = ["float32", "float64"]


@register_kernel("temporal_shift_grad", ("CPU", "GPU"), dtypes=FLOATS)
def temporal_shift_grad(ctx, out_grad: Tensor, seg_num: int, shift_ratio: float,
                        data_format: str) -> Tensor:
    """Each frame's gradient shifted back to the frame it came from (zeros past the ends)."""
    return transposed(ctx, temporal_shift, out_grad.shape, out_grad, seg_num, shift_ratio,
                       data_format)
