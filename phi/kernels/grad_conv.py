"""Gradients of the convolutions: conv2d_grad, depthwise_conv2d_grad, conv3d_grad and the
transposed ones (Paddle's paddle/phi/kernels/impl/conv_grad_kernel_impl.h and
conv_transpose_grad_kernel_impl.h: im2col + GEMM per group, col2im for the input gradient).

A convolution is ``out = W @ im2col(x)`` per group, so

* ``dW = sum_n dout @ im2col(x)^T`` and ``dx = col2im(W^T @ dout)``;

a transposed convolution is ``out = col2im(W^T @ x)``, so

* ``dx = W @ im2col(dout)`` (a convolution of the output gradient) and
  ``dW = sum_n x @ im2col(dout)^T``,

with the forward modules' geometry (conv_geometry, conv_transpose_geometry), windows (the
strided im2col view) and col2im; each GEMM is one batched ``matmul`` over (batch, group).
Channels-last tensors are computed on a channels-first view.
"""

from __future__ import annotations

from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import conv_transpose_geometry, is_channel_last, transpose_channel_last
from phi.kernels.conv import _pad_nchw, _windows, conv_geometry
from phi.kernels.conv_transpose import col2im
from phi.kernels.funcs import prod

__all__ = ["conv_grad_compute", "conv_transpose_grad_compute"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json): float and double for all six
CONV_GRAD_DTYPES = ["float32", "float64"]


def _first(xp, a, nd: int, channel_last: bool):
    """An [N, *spatial, C] array as [N, C, *spatial] (a view), or a as it is."""
    return xp.permute_dims(a, (0, nd + 1, *range(1, nd + 1))) if channel_last else a


def _last(xp, a, nd: int, channel_last: bool):
    """The inverse of ``_first``, made contiguous."""
    if channel_last:
        a = xp.permute_dims(a, (0, *range(2, nd + 2), 1))
    return xp.ascontiguousarray(a)


def conv_grad_compute(ctx, input, filter, out_grad, strides, paddings, padding_algorithm: str,
                      dilations, groups: int, data_format: str):
    """(input gradient, filter gradient) of conv2d / depthwise_conv2d / conv3d."""
    xp = ctx.xp
    nd = input.ndim - 2
    cl = is_channel_last(data_format)
    x = _first(xp, input, nd, cl)
    dout = _first(xp, out_grad, nd, cl)
    ksize = filter.shape[2:]
    pads, dils, out_sizes = conv_geometry(x.shape[2:], ksize, strides, paddings,
                                          padding_algorithm, dilations)
    n, c = x.shape[:2]
    o = filter.shape[0]
    if 0 in out_sizes or 0 in x.shape or 0 in filter.shape:
        return _last(xp, xp.zeros_like(x), nd, cl), xp.zeros_like(filter)
    k = (c // groups) * prod(ksize)
    length = prod(out_sizes)
    cols = xp.reshape(_windows(xp, _pad_nchw(xp, x, pads), groups, ksize, dils, strides,
                               out_sizes), (n, groups, k, length))
    dg = xp.reshape(xp.ascontiguousarray(dout), (n, groups, o // groups, length))
    dw = xp.sum(xp.matmul(dg, xp.swapaxes(cols, -1, -2)), axis=0)  # [G, O/G, K]
    wmat = xp.reshape(filter, (groups, o // groups, k))
    dcols = xp.matmul(xp.swapaxes(wmat, -1, -2), dg)  # [N, G, K, L]
    dx = col2im(xp, xp.reshape(dcols, (n, c, *ksize, *out_sizes)), strides, dils, pads[::2],
                x.shape[2:])
    return _last(xp, dx, nd, cl), xp.reshape(dw, filter.shape).astype(filter.dtype)


def conv_transpose_grad_compute(ctx, input, filter, out_grad, strides, paddings,
                                output_padding, output_size, padding_algorithm: str,
                                groups: int, dilations, data_format: str):
    """(input gradient, filter gradient) of conv2d_transpose / depthwise_conv2d_transpose /
    conv3d_transpose: the columns of the output gradient are read where col2im wrote them."""
    xp = ctx.xp
    nd = input.ndim - 2
    cl = transpose_channel_last(data_format)
    x = _first(xp, input, nd, cl)
    dout = _first(xp, out_grad, nd, cl)
    pads, dils, out_sizes = conv_transpose_geometry(
        x.shape, filter.shape, strides, paddings, output_padding, output_size,
        padding_algorithm, dilations)
    n, c_in = x.shape[:2]
    spatial = x.shape[2:]
    ksize = filter.shape[2:]
    c_out_g = filter.shape[1]
    out_sizes = dout.shape[2:]
    if 0 in out_sizes or 0 in x.shape or 0 in filter.shape:
        return _last(xp, xp.zeros_like(x), nd, cl), xp.zeros_like(filter)
    # col2im's buffer: every tap of every input position, and the output after its leading pad
    full = [max((b - 1) * s + d * (k - 1) + 1, p + o) for b, s, d, k, p, o in
            zip(spatial, strides, dils, ksize, pads[::2], out_sizes, strict=True)]
    grow = []
    for p, o, f in zip(pads[::2], out_sizes, full, strict=True):
        grow += [p, f - p - o]
    view = _windows(xp, _pad_nchw(xp, dout, grow), groups, ksize, dils, strides, spatial)
    kg = c_out_g * prod(ksize)
    length = prod(spatial)
    dcols = xp.reshape(view, (n, groups, kg, length))  # [N, G, C_out/G * K, L]
    xg = xp.reshape(xp.ascontiguousarray(x), (n, groups, c_in // groups, length))
    wg = xp.reshape(filter, (groups, c_in // groups, kg))
    dx = xp.reshape(xp.matmul(wg, dcols), x.shape)
    dw = xp.sum(xp.matmul(xg, xp.swapaxes(dcols, -1, -2)), axis=0)  # [G, C_in/G, K']
    return _last(xp, dx, nd, cl), xp.reshape(dw, filter.shape).astype(filter.dtype)


def _conv_grad(name: str, groups_first: bool):
    """Register ``name``: the conv grad signature, attributes in Paddle's order (conv2d_grad
    has dilations before groups, the other two groups first)."""
    if groups_first:
        def kernel(ctx, input: Tensor, filter: Tensor, out_grad: Tensor, strides: list[int],
                   paddings: list[int], padding_algorithm: str, groups: int,
                   dilations: list[int], data_format: str) -> tuple[Tensor, Tensor]:
            return conv_grad_compute(ctx, input, filter, out_grad, strides, paddings,
                                     padding_algorithm, dilations, groups, data_format)
    else:
        def kernel(ctx, input: Tensor, filter: Tensor, out_grad: Tensor, strides: list[int],
                   paddings: list[int], padding_algorithm: str, dilations: list[int],
                   groups: int, data_format: str) -> tuple[Tensor, Tensor]:
            return conv_grad_compute(ctx, input, filter, out_grad, strides, paddings,
                                     padding_algorithm, dilations, groups, data_format)
    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"{name}: (input gradient, filter gradient) of {name[:-5]}."
    return register_kernel(name, ("CPU", "GPU"), dtypes=CONV_GRAD_DTYPES)(kernel)


conv2d_grad = _conv_grad("conv2d_grad", groups_first=False)
depthwise_conv2d_grad = _conv_grad("depthwise_conv2d_grad", groups_first=True)
conv3d_grad = _conv_grad("conv3d_grad", groups_first=True)


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
