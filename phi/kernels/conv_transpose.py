"""conv2d_transpose, depthwise_conv2d_transpose and conv3d_transpose (Paddle's
paddle/phi/kernels/impl/conv_transpose_kernel_impl.h; the depthwise one is the same grouped
computation on CPU).

As Paddle: one GEMM per group gives columns [C_out/G * prod(k), prod(in)] for every input
pixel, and col2im / col2vol adds them into the output.  Here the GEMM is one batched ``matmul``
over (batch, group) and col2im is one strided add per filter tap (prod(k) of them, no loop over
pixels or channels) into a full-size buffer, which is then cropped by the leading paddings:
Paddle's col2im drops the taps that fall outside [0, out), which is what the crop does (the
buffer is grown where ``output_size`` / ``output_padding`` reach past the last tap, and those
positions stay zero).
"""

from __future__ import annotations

import itertools

from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import conv_transpose_geometry, transpose_channel_last
from phi.kernels.funcs import prod

__all__ = [
    "col2im",
    "conv2d_transpose",
    "conv3d_transpose",
    "depthwise_conv2d_transpose",
]

# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json): float and double for all three
CONV_TRANSPOSE_DTYPES = ["float32", "float64"]


def col2im(xp, cols, strides, dilations, pads_before, out_sizes):
    """Paddle's col2im / col2vol: columns [N, C, *k, *blocks] added into [N, C, *out], tap
    (t...) of block (b...) at b * stride - pad + t * dilation, dropped when outside [0, out).
    One strided add per tap, taps in row-major order (the order Paddle adds them), into a
    buffer that holds every tap and the output, then cropped by the leading paddings."""
    n, c = cols.shape[:2]
    nd = len(out_sizes)
    ksize, blocks = cols.shape[2:2 + nd], cols.shape[2 + nd:]
    full = [max((b - 1) * s + d * (k - 1) + 1, p + o) for b, s, d, k, p, o in
            zip(blocks, strides, dilations, ksize, pads_before, out_sizes, strict=True)]
    buf = xp.zeros((n, c, *full), dtype=cols.dtype)
    for tap in itertools.product(*(range(k) for k in ksize)):
        where = tuple(slice(t * d, t * d + (b - 1) * s + 1, s) for t, d, b, s in
                      zip(tap, dilations, blocks, strides, strict=True))
        buf[(slice(None), slice(None), *where)] += cols[(slice(None), slice(None), *tap)]
    return buf[(slice(None), slice(None),
                *(slice(p, p + o) for p, o in zip(pads_before, out_sizes, strict=True)))]


def conv_transpose_compute(ctx, x, filter, strides, paddings, output_padding, output_size,
                           padding_algorithm: str, groups: int, dilations, data_format: str):
    """[N, C_in, *in] (or channels last) with filter [C_in, C_out / groups, *k] -> [N, C_out,
    *out]: the gradient of a convolution with respect to its input, as a forward op."""
    xp = ctx.xp
    nd = x.ndim - 2
    channel_last = transpose_channel_last(data_format)
    if channel_last:
        x = xp.permute_dims(x, (0, nd + 1, *range(1, nd + 1)))
    pads, dils, out_sizes = conv_transpose_geometry(
        x.shape, filter.shape, strides, paddings, output_padding, output_size,
        padding_algorithm, dilations)
    n, c_in = x.shape[:2]
    spatial = x.shape[2:]
    c_out_g = filter.shape[1]
    ksize = filter.shape[2:]
    c_out = c_out_g * groups
    if 0 in out_sizes or 0 in x.shape or 0 in filter.shape:
        out = xp.zeros((n, c_out, *out_sizes), dtype=x.dtype)
    else:
        xg = xp.reshape(x, (n, groups, c_in // groups, prod(spatial)))
        wg = xp.reshape(filter, (groups, c_in // groups, c_out_g * prod(ksize)))
        cols = xp.matmul(xp.permute_dims(wg, (0, 2, 1))[None], xg)  # [N, G, C_out/G*K, L]
        cols = xp.reshape(cols, (n, c_out, *ksize, *spatial))
        out = col2im(xp, cols, strides, dils, pads[::2], out_sizes)
    if channel_last:
        out = xp.permute_dims(out, (0, *range(2, nd + 2), 1))
    return xp.asarray(out, copy=True)


@register_kernel("conv2d_transpose", ("CPU", "GPU"), dtypes=CONV_TRANSPOSE_DTYPES)
def conv2d_transpose(ctx, x: Tensor, filter: Tensor, strides: list[int],
                     paddings: list[int], output_padding: list[int], output_size: IntArray,
                     padding_algorithm: str, groups: int, dilations: list[int],
                     data_format: str) -> Tensor:
    """2-D transposed convolution: [N, C_in, H, W] with filter [C_in, C_out / groups, kh, kw]
    gives [N, C_out, Ho, Wo]."""
    return conv_transpose_compute(ctx, x, filter, strides, paddings, output_padding,
                                  output_size.data, padding_algorithm, groups, dilations,
                                  data_format)


@register_kernel("depthwise_conv2d_transpose", ("CPU", "GPU"), dtypes=CONV_TRANSPOSE_DTYPES)
def depthwise_conv2d_transpose(ctx, x: Tensor, filter: Tensor, strides: list[int],
                               paddings: list[int], output_padding: list[int],
                               output_size: IntArray, padding_algorithm: str, groups: int,
                               dilations: list[int], data_format: str) -> Tensor:
    """conv2d_transpose under its depthwise name (Paddle's CPU kernel is the grouped one)."""
    return conv_transpose_compute(ctx, x, filter, strides, paddings, output_padding,
                                  output_size.data, padding_algorithm, groups, dilations,
                                  data_format)


@register_kernel("conv3d_transpose", ("CPU", "GPU"), dtypes=CONV_TRANSPOSE_DTYPES)
def conv3d_transpose(ctx, x: Tensor, filter: Tensor, strides: list[int], paddings: list[int],
                     output_padding: list[int], output_size: list[int],
                     padding_algorithm: str, groups: int, dilations: list[int],
                     data_format: str) -> Tensor:
    """3-D transposed convolution of [N, C_in, D, H, W] (or NDHWC) with filter [C_in, C_out /
    groups, kd, kh, kw]."""
    return conv_transpose_compute(ctx, x, filter, strides, paddings, output_padding,
                                  output_size, padding_algorithm, groups, dilations,
                                  data_format)
