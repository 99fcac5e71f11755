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


from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import conv_transpose_geometry, transpose_channel_last
from phi.kernels.funcs import prod
from phi.kernels.funcs.conv import channels_first, channels_last, col2im, conv_windows, pad_nchw

__all__ = ["conv2d_transpose", "conv3d_transpose", "conv_transpose_grad_compute",
           "depthwise_conv2d_transpose"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json): float and double for all three
CONV_TRANSPOSE_DTYPES = ["float32", "float64"]


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


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json): float and double for all six
CONV_GRAD_DTYPES = ["float32", "float64"]


def conv_transpose_grad_compute(ctx, input, filter, out_grad, strides, paddings,
                                output_padding, output_size, padding_algorithm: str,
                                groups: int, dilations, data_format: str):
    """(input gradient, filter gradient) of conv2d_transpose / depthwise_conv2d_transpose /
    conv3d_transpose: the columns of the output gradient are read where col2im wrote them."""
    xp = ctx.xp
    nd = input.ndim - 2
    cl = transpose_channel_last(data_format)
    x = channels_first(xp, input, nd, cl)
    dout = channels_first(xp, out_grad, nd, cl)
    pads, dils, out_sizes = conv_transpose_geometry(
        x.shape, filter.shape, strides, paddings, output_padding, output_size,
        padding_algorithm, dilations)
    n, c_in = x.shape[:2]
    spatial = x.shape[2:]
    ksize = filter.shape[2:]
    c_out_g = filter.shape[1]
    out_sizes = dout.shape[2:]
    if 0 in out_sizes or 0 in x.shape or 0 in filter.shape:
        return channels_last(xp, xp.zeros_like(x), nd, cl), xp.zeros_like(filter)
    # col2im's buffer: every tap of every input position, and the output after its leading pad
    full = [max((b - 1) * s + d * (k - 1) + 1, p + o) for b, s, d, k, p, o in
            zip(spatial, strides, dils, ksize, pads[::2], out_sizes, strict=True)]
    grow = []
    for p, o, f in zip(pads[::2], out_sizes, full, strict=True):
        grow += [p, f - p - o]
    view = conv_windows(xp, pad_nchw(xp, dout, grow), groups, ksize, dils, strides, spatial)
    kg = c_out_g * prod(ksize)
    length = prod(spatial)
    dcols = xp.reshape(view, (n, groups, kg, length))  # [N, G, C_out/G * K, L]
    xg = xp.reshape(xp.ascontiguousarray(x), (n, groups, c_in // groups, length))
    wg = xp.reshape(filter, (groups, c_in // groups, kg))
    dx = xp.reshape(xp.matmul(wg, dcols), x.shape)
    dw = xp.sum(xp.matmul(xg, xp.swapaxes(dcols, -1, -2)), axis=0)  # [G, C_in/G, K']
    return channels_last(xp, dx, nd, cl), xp.reshape(dw, filter.shape).astype(filter.dtype)


def _conv_transpose_grad(name: str, size_type):
    """Register ``name``: the transposed conv grad signature (output_size an IntArray for the
    2-D kernels, a list for conv3d_transpose_grad, as in Paddle)."""
    def kernel(ctx, input: Tensor, filter: Tensor, out_grad: Tensor, strides: list[int],
               paddings: list[int], output_padding: list[int], output_size: IntArray,
               padding_algorithm: str, groups: int, dilations: list[int],
               data_format: str) -> tuple[Tensor, Tensor]:
        size = output_size.data if isinstance(output_size, IntArray) else output_size
        return conv_transpose_grad_compute(ctx, input, filter, out_grad, strides, paddings,
                                           output_padding, size, padding_algorithm, groups,
                                           dilations, data_format)
    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"{name}: (input gradient, filter gradient) of {name[:-5]}."
    kernel.__annotations__["output_size"] = size_type
    return register_kernel(name, ("CPU", "GPU"), dtypes=CONV_GRAD_DTYPES)(kernel)


conv2d_transpose_grad = _conv_transpose_grad("conv2d_transpose_grad", IntArray)
depthwise_conv2d_transpose_grad = _conv_transpose_grad("depthwise_conv2d_transpose_grad",
                                                       IntArray)
conv3d_transpose_grad = _conv_transpose_grad("conv3d_transpose_grad", list[int])
