"""Gradient of deformable_conv (DCN v1 / v2): deformable_conv_grad (Paddle's paddle/phi/kernels/
impl/deformable_conv_grad_kernel_impl.h, funcs/deformable_conv_functor.cc).

With the sampled columns (bilinear samples of the input at the tap positions plus offsets,
times Mask) and dcols = W^T @ dOut per group (read per step, below):

* Paddle reads the output gradient of each im2col step ([step, M, L] in memory) as if it were
  [M, step * L] (the forward transposes, the grad does not: deformable_conv_v1_far_offsets with
  im2col_step 2 is the evidence); dcols and dFilter come from that reading, which is the true
  gradient only with one sample per step;
* dFilter = sum over the steps of dOut @ columns^T;
* dInput: each column gradient (times Mask) added at the sample's four corners with their
  bilinear weights (ModulatedDeformableCol2im; corners outside the image get nothing);
* dOffset: per tap and position, the sum over the deformable group's channels of dcols * Mask
  times the bilinear value's slope along h / w (DmcnGetCoordinateWeight);
* dMask: the sum over the group's channels of dcols times the unmodulated sample.
"""

from __future__ import annotations

import numpy as np

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__: list[str] = []


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
