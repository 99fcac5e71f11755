"""Convolution kernels: conv2d and depthwise_conv2d (Paddle's
paddle/phi/kernels/cpu/conv_kernel.cc and impl/conv_kernel_impl.h).

Paddle computes a convolution as im2col + GEMM per group; so does this module, with numpy's
stride tricks in place of im2col's loops and one batched ``matmul`` over (batch, group) in place
of the per-group GEMM calls:

* the padded input is viewed (no copy) as windows [N, G, C/G, kh, kw, Ho, Wo];
* the view is copied once into columns [N, G, C/G*kh*kw, Ho*Wo] (that copy is im2col);
* filter [G, O/G, C/G*kh*kw] @ columns gives [N, G, O/G, Ho*Wo], i.e. NCHW output.

A depthwise convolution (one input channel per group) has GEMMs of a single row, where the
column copy costs more than the arithmetic; it is summed over the kh*kw filter taps instead,
each tap one multiply-add over strided views of the padded input.  The taps run over blocks of
channels sized for the CPU cache (a block loop, not one iteration per channel): summing taps
over the whole tensor at once streams it through memory kh*kw times and is 3x slower.

NHWC inputs are computed through an NCHW view and the result is transposed back.
"""

from __future__ import annotations

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.nn import conv_out_size, is_channel_last, resolve_conv_padding

__all__ = ["conv2d", "depthwise_conv2d"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
CONV2D_DTYPES = ["float32", "float64"]
DEPTHWISE_CONV2D_DTYPES = ["float32", "float64"]

_TAP_BLOCK_BYTES = 1 << 18
"""Bytes of padded input per channel block in the depthwise tap loop (best: 128-256 KB)."""


def _pad_nchw(xp, x, pads):
    top, bottom, left, right = pads
    if not any(pads):
        return x
    return xp.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))


def _windows(xp, x, groups: int, ksize, dilations, strides, out_hw):
    """A strided view [N, G, C/G, kh, kw, Ho, Wo] of the padded NCHW input x (no copy)."""
    n, c = x.shape[:2]
    sn, sc, sh, sw = x.strides
    shape = (n, groups, c // groups, ksize[0], ksize[1], out_hw[0], out_hw[1])
    strides = (sn, sc * (c // groups), sc, sh * dilations[0], sw * dilations[1],
               sh * strides[0], sw * strides[1])
    return xp.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)


def _conv_nchw(ctx, x, w, strides, pads, dilations, groups: int, out_hw):
    """Grouped convolution of an NCHW input (pads already resolved) -> [N, O, Ho, Wo]."""
    xp = ctx.xp
    n, c = x.shape[:2]
    o, cg, kh, kw = w.shape
    xpad = xp.ascontiguousarray(_pad_nchw(xp, x, pads))
    ho, wo = out_hw
    if cg == 1 and groups == c:
        return _depthwise_taps(xp, xpad, w, strides, dilations, out_hw)
    view = _windows(xp, xpad, groups, (kh, kw), dilations, strides, out_hw)
    cols = xp.reshape(view, (n, groups, cg * kh * kw, ho * wo))  # the im2col copy
    wmat = xp.reshape(w, (groups, o // groups, cg * kh * kw))
    if n * groups == 1:  # one plain GEMM (numpy's stacked matmul path is slower)
        return xp.reshape(xp.matmul(wmat[0], cols[0, 0]), (n, o, ho, wo))
    out = xp.matmul(wmat, cols)  # [N, G, O/G, Ho*Wo]
    return xp.reshape(out, (n, o, ho, wo))


def _depthwise_taps(xp, xpad, w, strides, dilations, out_hw):
    """Depthwise convolution (groups == C, O = C * m): one multiply-add per filter tap."""
    n, c, hp, wp = xpad.shape
    o, _, kh, kw = w.shape
    m = o // c
    ho, wo = out_hw
    sh, sw = strides
    dh, dw = dilations
    wt = xp.reshape(w, (c, m, kh, kw))
    out = xp.empty((n, c, m, ho, wo), dtype=xpad.dtype)
    block = max(1, _TAP_BLOCK_BYTES // max(1, n * hp * wp * xpad.itemsize))
    for c0 in range(0, c, block):
        c1 = min(c, c0 + block)
        acc = out[:, c0:c1]
        tmp = xp.empty_like(acc)
        for i in range(kh):
            rows = slice(i * dh, i * dh + sh * (ho - 1) + 1, sh)
            for j in range(kw):
                cols = slice(j * dw, j * dw + sw * (wo - 1) + 1, sw)
                tap = xpad[:, c0:c1, None, rows, cols]
                coef = wt[None, c0:c1, :, i, j, None, None]
                if i == 0 and j == 0:
                    xp.multiply(tap, coef, out=acc)
                else:
                    xp.multiply(tap, coef, out=tmp)
                    xp.add(acc, tmp, out=acc)
    return xp.reshape(out, (n, o, ho, wo))


def conv2d_compute(ctx, input, filter, strides, paddings, padding_algorithm: str, dilations,
                   groups: int, data_format: str):
    """Shared body of conv2d and depthwise_conv2d."""
    xp = ctx.xp
    channel_last = is_channel_last(data_format)
    x = xp.permute_dims(input, (0, 3, 1, 2)) if channel_last else input
    ksize = filter.shape[2:]
    pads, dils = resolve_conv_padding(paddings, dilations, padding_algorithm, x.shape[2:],
                                      strides, ksize)
    out_hw = tuple(conv_out_size(x.shape[2 + i], ksize[i], dils[i], pads[2 * i],
                                 pads[2 * i + 1], strides[i]) for i in range(2))
    out = _conv_nchw(ctx, x, filter, strides, pads, dils, groups, out_hw)
    if channel_last:
        out = xp.permute_dims(out, (0, 2, 3, 1))
    return xp.ascontiguousarray(out)


@register_kernel("conv2d", ("CPU", "GPU"), dtypes=CONV2D_DTYPES)
def conv2d(ctx, input: Tensor, filter: Tensor, strides: list[int], paddings: list[int],
           padding_algorithm: str, dilations: list[int], groups: int,
           data_format: str) -> Tensor:
    """2-D (grouped, dilated) cross-correlation of NCHW/NHWC input with an [O, C/G, kh, kw]
    filter; paddings of 2 values (both sides) or 4 (top, bottom, left, right)."""
    return conv2d_compute(ctx, input, filter, strides, paddings, padding_algorithm, dilations,
                          groups, data_format)


@register_kernel("depthwise_conv2d", ("CPU", "GPU"), dtypes=DEPTHWISE_CONV2D_DTYPES)
def depthwise_conv2d(ctx, input: Tensor, filter: Tensor, strides: list[int],
                     paddings: list[int], padding_algorithm: str, groups: int,
                     dilations: list[int], data_format: str) -> Tensor:
    """conv2d with depthwise_conv2d's attribute order (groups before dilations); Paddle's CPU
    kernel is the grouped conv, so any ``groups`` is accepted."""
    return conv2d_compute(ctx, input, filter, strides, paddings, padding_algorithm, dilations,
                          groups, data_format)
