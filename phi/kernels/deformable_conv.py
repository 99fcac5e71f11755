"""deformable_conv (DCN v1 / v2; Paddle's paddle/phi/kernels/impl/deformable_conv_kernel_impl.h
and funcs/deformable_conv_functor.cc): each filter tap samples the input at its regular
position plus a learned offset (bilinear, zero outside), modulated by Mask (v2), then the
sampled columns meet the filter as in a grouped convolution."""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["deformable_conv"]


def _bilinear(img, h, w):
    """Paddle's DmcnIm2colBilinear for every sample at once: img [C, H, W], h / w [...]."""
    height, width = img.shape[1:]
    t = img.dtype.type
    inside = (h > -1) & (w > -1) & (h < height) & (w < width)
    h_low = np.floor(h).astype(np.int64)
    w_low = np.floor(w).astype(np.int64)
    h_high, w_high = h_low + 1, w_low + 1
    lh = (h - h_low).astype(img.dtype)
    lw = (w - w_low).astype(img.dtype)
    hh, hw = t(1) - lh, t(1) - lw

    def at(hi, wi, ok):
        v = img[:, np.clip(hi, 0, height - 1), np.clip(wi, 0, width - 1)]
        return np.where(ok & inside, v, t(0))

    v1 = at(h_low, w_low, (h_low >= 0) & (w_low >= 0))
    v2 = at(h_low, w_high, (h_low >= 0) & (w_high <= width - 1))
    v3 = at(h_high, w_low, (h_high <= height - 1) & (w_low >= 0))
    v4 = at(h_high, w_high, (h_high <= height - 1) & (w_high <= width - 1))
    return hh * hw * v1 + hh * lw * v2 + lh * hw * v3 + lh * lw * v4


@register_kernel("deformable_conv", "CPU", dtypes=["float32", "float64"])
def deformable_conv(ctx, x: Tensor, offset: Tensor, filter: Tensor, mask: Tensor | None,
                    strides: list[int], paddings: list[int], dilations: list[int],
                    deformable_groups: int, groups: int, im2col_step: int) -> Tensor:
    """Deformable 2-D convolution, NCHW; without Mask (v1) every tap has weight 1."""
    if x.ndim != 4 or filter.ndim != 4:
        raise InvalidArgument(f"deformable_conv: Input and Filter must be 4-D, got dims "
                              f"{list(x.shape)} and {list(filter.shape)}.")
    n, c, height, width = x.shape
    m, cg, kh, kw = filter.shape
    if groups <= 0 or c != cg * groups or m % groups:
        raise InvalidArgument(f"deformable_conv: Input channels ({c}) must equal Filter's "
                              f"({cg}) times groups ({groups}), and the output channels ({m}) "
                              f"divide by groups.")
    if deformable_groups <= 0 or c % deformable_groups:
        raise InvalidArgument(f"deformable_conv: Input channels ({c}) must divide by "
                              f"deformable_groups ({deformable_groups}).")
    sh, sw = strides
    ph, pw = paddings[0], paddings[1]
    dh, dw = dilations
    oh = (height + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    ow = (width + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    dg = deformable_groups
    if offset.shape != (n, 2 * dg * kh * kw, oh, ow):
        raise InvalidArgument(f"deformable_conv: Offset must be [{n}, {2 * dg * kh * kw}, {oh}, "
                              f"{ow}], got {list(offset.shape)}.")
    if mask is not None and mask.shape != (n, dg * kh * kw, oh, ow):
        raise InvalidArgument(f"deformable_conv: Mask must be [{n}, {dg * kh * kw}, {oh}, "
                              f"{ow}], got {list(mask.shape)}.")
    base_h = (np.arange(oh) * sh - ph)[None, None, :, None] + (np.arange(kh) * dh)[:, None,
                                                                                     None, None]
    base_w = (np.arange(ow) * sw - pw)[None, None, None, :] + (np.arange(kw) * dw)[None, :,
                                                                                     None, None]
    out = np.empty((n, m, oh, ow), x.dtype)
    cpd = c // dg
    for b in range(n):
        off = offset[b].reshape(dg, kh, kw, 2, oh, ow)
        cols = np.empty((c, kh, kw, oh, ow), x.dtype)
        for g in range(dg):
            h = (base_h.astype(x.dtype) + off[g, :, :, 0]).astype(x.dtype)
            w = (base_w.astype(x.dtype) + off[g, :, :, 1]).astype(x.dtype)
            vals = _bilinear(x[b, g * cpd:(g + 1) * cpd], h, w)
            if mask is not None:
                vals = vals * mask[b].reshape(dg, kh, kw, oh, ow)[g]
            cols[g * cpd:(g + 1) * cpd] = vals
        cols = cols.reshape(groups, cg * kh * kw, oh * ow)
        wts = filter.reshape(groups, m // groups, cg * kh * kw)
        out[b] = np.matmul(wts, cols).reshape(m, oh, ow).astype(x.dtype)
    return out


def _corners(img, h, w):
    """The four corners of each sample: [(rows, cols, usable, value [C, ...])] in Paddle's
    order (low-low, low-high, high-low, high-high) and the fractions (lh, lw); a sample is
    usable only inside (-1, size) and a corner only inside the image."""
    height, width = img.shape[1:]
    t = img.dtype.type
    inside = (h > -1) & (w > -1) & (h < height) & (w < width)
    h_low = np.floor(h).astype(np.int64)
    w_low = np.floor(w).astype(np.int64)
    lh = (h - h_low).astype(img.dtype)
    lw = (w - w_low).astype(img.dtype)
    out = []
    for hi, wi in ((h_low, w_low), (h_low, w_low + 1), (h_low + 1, w_low),
                   (h_low + 1, w_low + 1)):
        ok = inside & (hi >= 0) & (wi >= 0) & (hi <= height - 1) & (wi <= width - 1)
        rows, cols = np.clip(hi, 0, height - 1), np.clip(wi, 0, width - 1)
        out.append((rows, cols, ok, np.where(ok, img[:, rows, cols], t(0))))
    return out, lh, lw


@register_kernel("deformable_conv_grad", "CPU", dtypes=["float32", "float64"])
def deformable_conv_grad(ctx, x: Tensor, offset: Tensor, filter: Tensor, mask: Tensor | None,
                         out_grad: Tensor, strides: list[int], paddings: list[int],
                         dilations: list[int], deformable_groups: int, groups: int,
                         im2col_step: int) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(dInput, dOffset, dFilter, dMask) of deformable_conv (dMask None without Mask)."""
    n, c = x.shape[:2]
    m, cg, kh, kw = filter.shape
    oh, ow = out_grad.shape[2:]
    sh, sw = strides
    ph, pw = paddings[0], paddings[1]
    dh, dw = dilations
    dg = deformable_groups
    cpd = c // dg
    t = x.dtype.type
    base_h = (np.arange(oh) * sh - ph)[None, None, :, None] + (np.arange(kh) * dh)[:, None,
                                                                                     None, None]
    base_w = (np.arange(ow) * sw - pw)[None, None, None, :] + (np.arange(kw) * dw)[None, :,
                                                                                     None, None]
    dx = np.zeros_like(x)
    doff = np.zeros_like(offset)
    dfilter = np.zeros_like(filter)
    dmask = np.zeros_like(mask) if mask is not None else None
    wts = filter.reshape(groups, m // groups, cg * kh * kw)
    step = max(1, min(im2col_step, n))
    step_cols = []
    length = oh * ow
    for b in range(n):
        s = b % step
        if s == 0:  # a step's dOut, read as Paddle reads it (module doc)
            dmem = np.ascontiguousarray(out_grad[b:b + step]).reshape(groups, m // groups,
                                                                      step * length)
            dcols_step = np.matmul(np.swapaxes(wts, 1, 2), dmem)
        dcols = dcols_step[:, :, s * length:(s + 1) * length].reshape(c, kh, kw, oh, ow)
        off = offset[b].reshape(dg, kh, kw, 2, oh, ow)
        doff_b = doff[b].reshape(dg, kh, kw, 2, oh, ow)
        cols = np.empty((c, kh, kw, oh, ow), x.dtype)
        for g in range(dg):
            chans = slice(g * cpd, (g + 1) * cpd)
            h = (base_h.astype(x.dtype) + off[g, :, :, 0]).astype(x.dtype)
            w = (base_w.astype(x.dtype) + off[g, :, :, 1]).astype(x.dtype)
            corners, lh, lw = _corners(x[b, chans], h, w)
            hh, hw = t(1) - lh, t(1) - lw
            weights = (hh * hw, hh * lw, lh * hw, lh * lw)
            val = sum(wt * v for wt, (_, _, _, v) in zip(weights, corners, strict=True))
            mod = mask[b].reshape(dg, kh, kw, oh, ow)[g] if mask is not None else t(1)
            cols[chans] = val * mod
            dc = dcols[chans]
            if dmask is not None:
                dmask[b].reshape(dg, kh, kw, oh, ow)[g] = np.sum(dc * val, axis=0)
            dcm = dc * mod
            v1, v2, v3, v4 = (v for _, _, _, v in corners)
            doff_b[g, :, :, 0] = np.sum(dcm * (hw * (v3 - v1) + lw * (v4 - v2)), axis=0)
            doff_b[g, :, :, 1] = np.sum(dcm * (hh * (v2 - v1) + lh * (v4 - v3)), axis=0)
            img = dx[b, chans]
            chan = np.arange(cpd)[:, None, None, None, None]
            for wt, (rows, cols_, ok, _) in zip(weights, corners, strict=True):
                sel = np.broadcast_to(ok, dcm.shape)
                where = (np.broadcast_to(chan, dcm.shape)[sel],
                         np.broadcast_to(rows, dcm.shape)[sel],
                         np.broadcast_to(cols_, dcm.shape)[sel])
                np.add.at(img, where, (dcm * wt)[sel])
        step_cols.append(cols.reshape(groups, cg * kh * kw, oh * ow))
        if len(step_cols) == step:
            cmat = np.concatenate(step_cols, axis=2)
            dfilter += np.matmul(dmem, np.swapaxes(cmat, 1, 2)).reshape(filter.shape)
            step_cols = []
    return dx, doff, dfilter, dmask
