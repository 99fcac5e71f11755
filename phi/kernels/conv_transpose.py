"""conv2d_transpose (Paddle's paddle/phi/kernels/impl/conv_transpose_kernel_impl.h).

As Paddle: one GEMM per group gives columns [C_out/G * kh * kw, H * W] for every input pixel,
and col2im adds them into the output.  Here the GEMM is one batched ``matmul`` over (batch,
group) and col2im is one strided add per filter tap (kh * kw of them, no loop over pixels or
channels) into the full-size output, which is then cropped by the paddings.
"""

from __future__ import annotations

from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.nn import conv_transpose_geometry, is_channel_last

__all__ = ["conv2d_transpose"]


@register_kernel("conv2d_transpose", ("CPU", "GPU"), dtypes=["float32", "float64"])
def conv2d_transpose(ctx, x: Tensor, filter: Tensor, strides: list[int],
                     paddings: list[int], output_padding: list[int], output_size: IntArray,
                     padding_algorithm: str, groups: int, dilations: list[int],
                     data_format: str) -> Tensor:
    """The gradient of conv2d with respect to its input, as a forward op: [N, C_in, H, W] with
    filter [C_in, C_out / groups, kh, kw] gives [N, C_out, Ho, Wo]."""
    xp = ctx.xp
    channel_last = is_channel_last(data_format)
    if channel_last:
        x = xp.permute_dims(x, (0, 3, 1, 2))
    pads, dils, out_hw = conv_transpose_geometry(
        x.shape, filter.shape, strides, paddings, output_padding, output_size.data,
        padding_algorithm, dilations)
    n, c_in, h, w = x.shape
    _, c_out_g, kh, kw = filter.shape
    c_out = c_out_g * groups
    xg = xp.reshape(x, (n, groups, c_in // groups, h * w))
    wg = xp.reshape(filter, (groups, c_in // groups, c_out_g * kh * kw))
    cols = xp.matmul(xp.permute_dims(wg, (0, 2, 1))[None], xg)  # [N, G, C_out/G*kh*kw, H*W]
    cols = xp.reshape(cols, (n, c_out, kh, kw, h, w))
    sh, sw = strides
    full_h = max((h - 1) * sh + dils[0] * (kh - 1) + 1, pads[0] + out_hw[0])
    full_w = max((w - 1) * sw + dils[1] * (kw - 1) + 1, pads[2] + out_hw[1])
    full = xp.zeros((n, c_out, full_h, full_w), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            top, left = i * dils[0], j * dils[1]
            full[:, :, top:top + (h - 1) * sh + 1:sh, left:left + (w - 1) * sw + 1:sw] += \
                cols[:, :, i, j]
    out = full[:, :, pads[0]:pads[0] + out_hw[0], pads[2]:pads[2] + out_hw[1]]
    if channel_last:
        out = xp.permute_dims(out, (0, 2, 3, 1))
    return xp.asarray(out, copy=True)
