"""numba loops behind ``phi.kernels.funcs.jit`` (imported only through ``jit.kernels()``: importing
this module imports numba).  Every loop writes its results into arrays its caller allocated."""

from __future__ import annotations

import numba
import numpy as np

# the loops the kernels call (each exported by the ahead-of-time build: aot.EXPORTS); the others
# (affine_act, affine_add_act, bn_coefficients, _fill_phases, _pairwise_sum) are called by these
__all__ = ["bn_affine_act", "bn_affine_add_act", "depthwise", "depthwise_3x3_small", "gelu_erf",
           "im2col", "layer_norm", "max_pool2d", "softmax", "winograd_input", "winograd_output",
           "winograd_weight"]

_JIT = numba.njit(cache=True, nogil=True)


@_JIT
def _fill_phases(x, xf, b, ic, ph, hq, wq, pt, pl, sh, sw):
    """Plane (b, ic) of x [N, C, H, W] (xf: x flat) into its flat stride phases
    ph [sh * sw * hq * wq] (conv._depthwise_phases' layout: phase (pa, pb) at [r, q] holds
    padded row r * sh + pa, column q * sw + pb): only the positions inside x are written, the
    rest stay as the caller left them (zero).  Flat unsigned indices: contiguous rows copy as
    vector loops."""
    c, h, wd = x.shape[1], x.shape[2], x.shape[3]
    xoff = (b * c + ic) * h * wd
    plen = hq * wq
    for pa in range(sh):
        r0 = max(0, (pt - pa + sh - 1) // sh)  # the phase rows inside x
        r1 = min(hq, (h + pt - pa + sh - 1) // sh)
        for pb in range(sw):
            q0 = max(0, (pl - pb + sw - 1) // sw)
            q1 = min(wq, (wd + pl - pb + sw - 1) // sw)
            if q1 <= q0:
                continue
            nq = q1 - q0
            base = (pa * sw + pb) * plen
            for r in range(r0, r1):
                src = np.uint64(xoff + (r * sh + pa - pt) * wd + q0 * sw + pb - pl)
                dst = np.uint64(base + r * wq + q0)
                if sw == 1:
                    for q in range(nq):
                        uq = np.uint64(q)
                        ph[dst + uq] = xf[src + uq]
                else:
                    usw = np.uint64(sw)
                    for q in range(nq):
                        uq = np.uint64(q)
                        ph[dst + uq] = xf[src + uq * usw]


@_JIT
def depthwise(x, w, out, pt, pl, sh, sw, dh, dw, c0, c1):
    """out [N, C*m, Ho, Wo] = the depthwise convolution of x [N, C, H, W] with w [C*m, kh, kw],
    padded (pt top, pl left; taps outside x are zero), strided and dilated, for the input
    channels c0 .. c1 (their m output channels each; the other channels are left alone: the
    caller may split the channels over threads).

    Per input channel, x's zero-padded plane is split into its sh * sw stride phases (phase
    (a, b) at [r, q] holds padded row r * sh + a, column q * sw + b; one phase with stride 1),
    each flattened on a common row width wq (as conv._depthwise_phases does): a filter tap
    then reads one contiguous run of a phase for a row of outputs (or for every output
    position at once, computed on the row width wq, the extra columns dropped).  Per output
    the taps are summed in row-major order from zero (0 + w00 x00 + w01 x01 + ...): 3x3
    filters with the nine taps in registers, one pass over the outputs; other sizes tap by
    tap into a local accumulator.  Indices are unsigned (numba then emits no negative-index
    wraparound, and the loops vectorise).  (The conv_bn step's epilogue applied here, per
    value or per channel, was no faster than affine_act's pass after it: not done.)"""
    n, c = x.shape[0], x.shape[1]
    o, kh, kw = w.shape
    m = o // c
    ho, wo = out.shape[2], out.shape[3]
    hq = ho + (kh - 1) * dh // sh + 1  # one more row: every tap's run inside its phase
    wq = wo + (kw - 1) * dw // sw
    plen = hq * wq
    ph = np.zeros(sh * sw * plen, dtype=x.dtype)
    length = ho * wq
    acc = np.empty(length, dtype=out.dtype)
    taps = kh * kw
    offs = np.empty(taps, dtype=np.uint64)
    for i in range(kh):
        for j in range(kw):
            offs[i * kw + j] = np.uint64((((i * dh) % sh) * sw + (j * dw) % sw) * plen
                                         + (i * dh) // sh * wq + (j * dw) // sw)
    of = out.reshape(n * o * ho * wo)
    xf = x.ravel()
    zero = x.dtype.type(0)
    by_rows = wo >= 24  # 3x3: per output row (long rows) or over the flat positions
    for b in range(n):
        for ic in range(c0, c1):
            _fill_phases(x, xf, b, ic, ph, hq, wq, pt, pl, sh, sw)
            for oc in range(ic * m, ic * m + m):
                obase = (b * o + oc) * ho * wo
                if taps == 9:
                    w0, w1, w2 = w[oc, 0, 0], w[oc, 0, 1], w[oc, 0, 2]
                    w3, w4, w5 = w[oc, 1, 0], w[oc, 1, 1], w[oc, 1, 2]
                    w6, w7, w8 = w[oc, 2, 0], w[oc, 2, 1], w[oc, 2, 2]
                    u0, u1, u2, u3, u4 = offs[0], offs[1], offs[2], offs[3], offs[4]
                    u5, u6, u7, u8 = offs[5], offs[6], offs[7], offs[8]
                    if by_rows:
                        for oy in range(ho):
                            kb = oy * wq
                            ob = np.uint64(obase + oy * wo)
                            for ox in range(wo):
                                k = np.uint64(kb + ox)
                                v = zero
                                v += w0 * ph[k + u0]
                                v += w1 * ph[k + u1]
                                v += w2 * ph[k + u2]
                                v += w3 * ph[k + u3]
                                v += w4 * ph[k + u4]
                                v += w5 * ph[k + u5]
                                v += w6 * ph[k + u6]
                                v += w7 * ph[k + u7]
                                v += w8 * ph[k + u8]
                                of[ob + np.uint64(ox)] = v
                        continue
                    for kk in range(length):
                        k = np.uint64(kk)
                        v = zero
                        v += w0 * ph[k + u0]
                        v += w1 * ph[k + u1]
                        v += w2 * ph[k + u2]
                        v += w3 * ph[k + u3]
                        v += w4 * ph[k + u4]
                        v += w5 * ph[k + u5]
                        v += w6 * ph[k + u6]
                        v += w7 * ph[k + u7]
                        v += w8 * ph[k + u8]
                        acc[k] = v
                else:
                    acc[:] = 0
                    for tap in range(taps):
                        wv = w[oc, tap // kw, tap % kw]
                        u = offs[tap]
                        for kk in range(length):
                            k = np.uint64(kk)
                            acc[k] += wv * ph[k + u]
                for oy in range(ho):
                    kb = np.uint64(oy * wq)
                    ob = np.uint64(obase + oy * wo)
                    for ox in range(wo):
                        uo = np.uint64(ox)
                        of[ob + uo] = acc[kb + uo]


@_JIT
def depthwise_3x3_small(x, w, out, pt, pl, sh, sw, dh, dw, c0, c1):
    """depthwise for a 3x3 filter over a few output positions (ResNet / MobileNet tails:
    2x2 maps), vectorised over channels instead of positions: the channels' planes
    transposed to [H * W + 1, channels] (the last row zero: the padding taps read it) and
    the filter to [9, channels], then per output position the nine taps summed in
    depthwise's order (0 + w00 x00 + w01 x01 + ...: the same bits), each a contiguous run
    over the channels.  On a 2x2 map depthwise's per-channel set-up outweighs its 36
    multiply-adds; this has none per channel.  Same arguments as depthwise."""
    n, c, h, wd = x.shape[0], x.shape[1], x.shape[2], x.shape[3]
    o = w.shape[0]
    m = o // c
    ho, wo = out.shape[2], out.shape[3]
    hw = h * wd
    npos = ho * wo
    src = np.empty(npos * 9, dtype=np.uint64)  # x's flat position per (output, tap)
    for oy in range(ho):
        for ox in range(wo):
            for i in range(3):
                iy = oy * sh - pt + i * dh
                for j in range(3):
                    ix = ox * sw - pl + j * dw
                    q = iy * wd + ix if 0 <= iy < h and 0 <= ix < wd else hw
                    src[(oy * wo + ox) * 9 + i * 3 + j] = np.uint64(q)
    oc0 = c0 * m
    no = (c1 - c0) * m
    uno = np.uint64(no)
    xt = np.zeros((hw + 1) * no, dtype=x.dtype)
    wt = np.empty(9 * no, dtype=w.dtype)
    acc = np.empty(no, dtype=out.dtype)
    xf = x.ravel()
    wf = w.ravel()
    of = out.reshape(n * o * npos)
    zero = x.dtype.type(0)
    for k in range(no):
        for t in range(9):
            wt[t * no + k] = wf[(oc0 + k) * 9 + t]
    for b in range(n):
        for ic in range(c0, c1):
            xbase = (b * c + ic) * hw
            for r in range(m):
                k = (ic - c0) * m + r
                for q in range(hw):
                    xt[q * no + k] = xf[xbase + q]
        for p in range(npos):
            s0, s1, s2 = src[p * 9] * uno, src[p * 9 + 1] * uno, src[p * 9 + 2] * uno
            s3, s4, s5 = src[p * 9 + 3] * uno, src[p * 9 + 4] * uno, src[p * 9 + 5] * uno
            s6, s7, s8 = src[p * 9 + 6] * uno, src[p * 9 + 7] * uno, src[p * 9 + 8] * uno
            for k in range(no):
                u = np.uint64(k)
                v = zero
                v += wt[u] * xt[s0 + u]
                v += wt[uno + u] * xt[s1 + u]
                v += wt[2 * uno + u] * xt[s2 + u]
                v += wt[3 * uno + u] * xt[s3 + u]
                v += wt[4 * uno + u] * xt[s4 + u]
                v += wt[5 * uno + u] * xt[s5 + u]
                v += wt[6 * uno + u] * xt[s6 + u]
                v += wt[7 * uno + u] * xt[s7 + u]
                v += wt[8 * uno + u] * xt[s8 + u]
                acc[u] = v
            obase = (b * o + oc0) * npos + p
            for k in range(no):
                of[obase + k * npos] = acc[k]


@_JIT
def winograd_input(p, v, th, tw, c0, c1):
    """Winograd F(2x2, 3x3)'s input transform B^T d B of every 4x4 tile (two apart) of the
    padded p [C, N, 2 th + 2, 2 tw + 2] into v [16, C, N * th * tw] (row-major (r, q)), for
    the channels c0 .. c1."""
    n = p.shape[1]
    for ch in range(c0, c1):
        for b in range(n):
            pc = p[ch, b]
            for i in range(th):
                r0 = pc[2 * i]
                r1 = pc[2 * i + 1]
                r2 = pc[2 * i + 2]
                r3 = pc[2 * i + 3]
                base = (b * th + i) * tw
                for j in range(tw):
                    q = 2 * j
                    t = base + j
                    # B^T d over rows, per column q .. q + 3
                    a0 = r0[q] - r2[q]
                    a1 = r0[q + 1] - r2[q + 1]
                    a2 = r0[q + 2] - r2[q + 2]
                    a3 = r0[q + 3] - r2[q + 3]
                    v[0, ch, t] = a0 - a2
                    v[1, ch, t] = a1 + a2
                    v[2, ch, t] = a2 - a1
                    v[3, ch, t] = a1 - a3
                    a0 = r1[q] + r2[q]
                    a1 = r1[q + 1] + r2[q + 1]
                    a2 = r1[q + 2] + r2[q + 2]
                    a3 = r1[q + 3] + r2[q + 3]
                    v[4, ch, t] = a0 - a2
                    v[5, ch, t] = a1 + a2
                    v[6, ch, t] = a2 - a1
                    v[7, ch, t] = a1 - a3
                    a0 = r2[q] - r1[q]
                    a1 = r2[q + 1] - r1[q + 1]
                    a2 = r2[q + 2] - r1[q + 2]
                    a3 = r2[q + 3] - r1[q + 3]
                    v[8, ch, t] = a0 - a2
                    v[9, ch, t] = a1 + a2
                    v[10, ch, t] = a2 - a1
                    v[11, ch, t] = a1 - a3
                    a0 = r1[q] - r3[q]
                    a1 = r1[q + 1] - r3[q + 1]
                    a2 = r1[q + 2] - r3[q + 2]
                    a3 = r1[q + 3] - r3[q + 3]
                    v[12, ch, t] = a0 - a2
                    v[13, ch, t] = a1 + a2
                    v[14, ch, t] = a2 - a1
                    v[15, ch, t] = a1 - a3


@_JIT
def winograd_output(m, y, th, tw, c0, c1):
    """Winograd F(2x2, 3x3)'s output transform A^T m A of m [16, O, N * th * tw] into
    y [N, O, Ho, Wo] (Ho <= 2 th, Wo <= 2 tw: a tile's outputs past them are dropped) for the
    output channels c0 .. c1, with the numpy path's order of additions.  (The conv_bn step's
    epilogue applied here, per value or per plane, made ResNets 1-2% slower: not done.)"""
    n, ho, wo = y.shape[0], y.shape[2], y.shape[3]
    for b in range(n):
        for oc in range(c0, c1):
            uoc = np.uint64(oc)
            yo = y[b, oc]
            for i in range(th):
                base = np.uint64((b * th + i) * tw)
                two_rows = 2 * i + 1 < ho
                y0 = np.uint64(2 * i)
                y1 = y0 + np.uint64(1)
                for j in range(tw):
                    t = base + np.uint64(j)
                    # A^T m: s0 = m0 + m1 + m2, s1 = m1 - m2 - m3 (rows of 4)
                    s00 = m[0, uoc, t] + m[4, uoc, t] + m[8, uoc, t]
                    s01 = m[1, uoc, t] + m[5, uoc, t] + m[9, uoc, t]
                    s02 = m[2, uoc, t] + m[6, uoc, t] + m[10, uoc, t]
                    s03 = m[3, uoc, t] + m[7, uoc, t] + m[11, uoc, t]
                    s10 = m[4, uoc, t] - m[8, uoc, t] - m[12, uoc, t]
                    s11 = m[5, uoc, t] - m[9, uoc, t] - m[13, uoc, t]
                    s12 = m[6, uoc, t] - m[10, uoc, t] - m[14, uoc, t]
                    s13 = m[7, uoc, t] - m[11, uoc, t] - m[15, uoc, t]
                    x0 = np.uint64(2 * j)
                    x1 = x0 + np.uint64(1)
                    yo[y0, x0] = s00 + s01 + s02
                    if 2 * j + 1 < wo:
                        yo[y0, x1] = s01 - s02 - s03
                    if two_rows:
                        yo[y1, x0] = s10 + s11 + s12
                        if 2 * j + 1 < wo:
                            yo[y1, x1] = s11 - s12 - s13


@_JIT
def _max_nan(a, v):
    """max_pool2d's step: v where it is larger or NaN (numpy's maximum), else a."""
    return v if (v > a) | (v != v) else a


@_JIT
def max_pool2d(x, out, kh, kw, sh, sw, pt, pl, floor):
    """Max pooling of x [N, C, H, W] into out [N, C, Ho, Wo]: windows kh x kw, sh x sw apart,
    starting pt / pl before the input; padding never wins (planes padded with -inf), each
    output starts from ``floor`` (-FLT_MAX) and a NaN in the window gives NaN (as numpy's
    maximum does).  Per channel, the -inf-padded plane is split into its sw column phases
    (phase pb at [r, q] holds padded column q * sw + pb), so that a tap reads one contiguous
    run for a row of outputs; per output row the taps in row-major order.  Flat unsigned
    indices (no negative-index wraparound: the loops vectorise)."""
    n, c, h, wd = x.shape
    ho, wo = out.shape[2], out.shape[3]
    hp = max((ho - 1) * sh + kh, pt + h)
    wq = wo + (kw - 1) // sw + 1  # columns of a phase: every tap and every column of x
    wq = max(wq, (pl + wd + sw - 1) // sw)
    plen = hp * wq
    planes = np.full(sw * plen, -np.inf, dtype=x.dtype)
    acc = np.empty(wo, dtype=out.dtype)
    xf = x.ravel()
    of = out.reshape(n * c * ho * wo)
    for b in range(n):
        for ch in range(c):
            xoff = (b * c + ch) * h * wd
            for pb in range(sw):  # x's columns ix with (ix + pl) % sw == pb
                q0 = (pl - pb + sw - 1) // sw if pl > pb else 0
                q1 = (wd + pl - pb + sw - 1) // sw
                if q1 <= q0:
                    continue
                nq = q1 - q0
                usw = np.uint64(sw)
                for r in range(h):
                    src = np.uint64(xoff + r * wd + q0 * sw + pb - pl)
                    dst = np.uint64(pb * plen + (r + pt) * wq + q0)
                    if sw == 1:
                        for q in range(nq):
                            uq = np.uint64(q)
                            planes[dst + uq] = xf[src + uq]
                    else:
                        for q in range(nq):
                            uq = np.uint64(q)
                            planes[dst + uq] = xf[src + uq * usw]
            obase = (b * c + ch) * ho * wo
            if kh == 3 and kw == 3:  # the nine taps in registers, one pass per output row
                u1 = np.uint64((1 % sw) * plen + 1 // sw)
                u2 = np.uint64((2 % sw) * plen + 2 // sw)
                uw = np.uint64(wq)
                uw2 = np.uint64(2 * wq)
                for oy in range(ho):
                    r0 = np.uint64(oy * sh * wq)
                    r1 = r0 + uw
                    r2 = r0 + uw2
                    ob = np.uint64(obase + oy * wo)
                    for k in range(wo):
                        uk = np.uint64(k)
                        m = _max_nan(floor, planes[r0 + uk])
                        m = _max_nan(m, planes[r0 + u1 + uk])
                        m = _max_nan(m, planes[r0 + u2 + uk])
                        m = _max_nan(m, planes[r1 + uk])
                        m = _max_nan(m, planes[r1 + u1 + uk])
                        m = _max_nan(m, planes[r1 + u2 + uk])
                        m = _max_nan(m, planes[r2 + uk])
                        m = _max_nan(m, planes[r2 + u1 + uk])
                        m = _max_nan(m, planes[r2 + u2 + uk])
                        of[ob + uk] = m
                continue
            for oy in range(ho):
                acc[:] = floor
                for i in range(kh):
                    rbase = (oy * sh + i) * wq
                    for j in range(kw):
                        base = np.uint64((j % sw) * plen + rbase + j // sw)
                        for k in range(wo):
                            uk = np.uint64(k)
                            v = planes[base + uk]
                            a = acc[uk]
                            acc[uk] = _max_nan(a, v)
                ob = np.uint64(obase + oy * wo)
                for k in range(wo):
                    uk = np.uint64(k)
                    of[ob + uk] = acc[uk]


@_JIT
def winograd_weight(w, u):
    """Winograd F(2x2, 3x3)'s filter transform G g G^T of w [O, C, 3, 3] into u [16, O, C]
    (G = [[1, 0, 0], [1/2, 1/2, 1/2], [1/2, -1/2, 1/2], [0, 0, 1]]; rows, then columns)."""
    o, c = w.shape[0], w.shape[1]
    gg = np.empty((4, 3), dtype=u.dtype)
    for oc in range(o):
        for ic in range(c):
            g = w[oc, ic]
            for q in range(3):
                gg[0, q] = g[0, q]
                gg[1, q] = (g[0, q] + g[1, q] + g[2, q]) * 0.5
                gg[2, q] = (g[0, q] - g[1, q] + g[2, q]) * 0.5
                gg[3, q] = g[2, q]
            for r in range(4):
                u[4 * r, oc, ic] = gg[r, 0]
                u[4 * r + 1, oc, ic] = (gg[r, 0] + gg[r, 1] + gg[r, 2]) * 0.5
                u[4 * r + 2, oc, ic] = (gg[r, 0] - gg[r, 1] + gg[r, 2]) * 0.5
                u[4 * r + 3, oc, ic] = gg[r, 2]


@_JIT
def affine_act(y, scale, bias, act, c0, c1):
    """In place over channels c0 .. c1 of y [N, C, L] (C-contiguous): y * scale[c], + bias[c]
    (each rounded, as numpy's two passes are), then act 1: relu (v > 0 ? v : 0: NaN -> 0,
    -0.0 -> +0.0, as np.fmax(v, 0)) or 2: relu6 (np.clip(v, 0, 6): NaN and -0.0 kept); one
    pass instead of two or three.  Flat unsigned indices (no view per channel: on small maps
    that cost more than the arithmetic)."""
    n, c, length = y.shape
    yf = y.reshape(n * c * length)
    zero = y.dtype.type(0)
    six = y.dtype.type(6)
    for b in range(n):
        for ch in range(c0, c1):
            s = scale[ch]
            t = bias[ch]
            base = np.uint64((b * c + ch) * length)
            if act == 1:
                for k in range(length):
                    i = base + np.uint64(k)
                    v = yf[i] * s + t
                    yf[i] = v if v > zero else zero
            elif act == 2:
                for k in range(length):
                    i = base + np.uint64(k)
                    v = yf[i] * s + t
                    if v < zero:
                        v = zero
                    elif v > six:
                        v = six
                    yf[i] = v
            else:
                for k in range(length):
                    i = base + np.uint64(k)
                    yf[i] = yf[i] * s + t


@_JIT
def affine_add_act(y, scale, bias, other, act, c0, c1):
    """affine_act with a residual: in place over channels c0 .. c1 of y [N, C, L], y * scale[c],
    + bias[c], + other (C-contiguous, y's dims), each rounded (numpy's three passes: batch_norm,
    then elementwise_add), then act 1 (relu) or 2 (relu6) as affine_act's."""
    n, c, length = y.shape
    yf = y.reshape(n * c * length)
    of = other.reshape(n * c * length)
    zero = y.dtype.type(0)
    six = y.dtype.type(6)
    for b in range(n):
        for ch in range(c0, c1):
            s = scale[ch]
            t = bias[ch]
            base = np.uint64((b * c + ch) * length)
            if act == 1:
                for k in range(length):
                    i = base + np.uint64(k)
                    v = yf[i] * s + t
                    v = v + of[i]
                    yf[i] = v if v > zero else zero
            elif act == 2:
                for k in range(length):
                    i = base + np.uint64(k)
                    v = yf[i] * s + t
                    v = v + of[i]
                    if v < zero:
                        v = zero
                    elif v > six:
                        v = six
                    yf[i] = v
            else:
                for k in range(length):
                    i = base + np.uint64(k)
                    v = yf[i] * s + t
                    yf[i] = v + of[i]


@numba.njit(cache=True, nogil=True, error_model="numpy")  # x / 0: inf or NaN, as numpy
def bn_coefficients(mean, variance, scale, bias, epsilon, new_scale, new_bias, c0, c1):
    """batch_norm's per-channel coefficients from its running statistics for the channels
    c0 .. c1, the operations of norm.global_stats_coefficients in its order and dtype (each
    rounded): inv_std = 1 / sqrt(variance + T(epsilon)), new_scale = inv_std * scale,
    new_bias = bias - mean * inv_std * scale; one pass instead of seven numpy calls."""
    one = new_scale.dtype.type(1)
    eps = new_scale.dtype.type(epsilon)
    for ch in range(c0, c1):
        inv_std = one / np.sqrt(variance[ch] + eps)
        new_scale[ch] = inv_std * scale[ch]
        new_bias[ch] = bias[ch] - mean[ch] * inv_std * scale[ch]


@numba.njit(cache=True, nogil=True, error_model="numpy")
def bn_affine_act(y, mean, variance, scale, bias, epsilon, act, c0, c1):
    """The conv_bn step's epilogue in one call: bn_coefficients, then affine_act, for the
    channels c0 .. c1 of y [N, C, L] (the same operations: the same bits)."""
    new_scale = np.empty(mean.shape[0], dtype=y.dtype)
    new_bias = np.empty(mean.shape[0], dtype=y.dtype)
    bn_coefficients(mean, variance, scale, bias, epsilon, new_scale, new_bias, c0, c1)
    affine_act(y, new_scale, new_bias, act, c0, c1)


@numba.njit(cache=True, nogil=True, error_model="numpy")
def bn_affine_add_act(y, mean, variance, scale, bias, epsilon, other, act, c0, c1):
    """bn_affine_act with affine_add_act's residual (other: y's dims, C-contiguous)."""
    new_scale = np.empty(mean.shape[0], dtype=y.dtype)
    new_bias = np.empty(mean.shape[0], dtype=y.dtype)
    bn_coefficients(mean, variance, scale, bias, epsilon, new_scale, new_bias, c0, c1)
    affine_add_act(y, new_scale, new_bias, other, act, c0, c1)


@_JIT
def im2col(x, cols, oy0, oy1, wo, kh, kw, sh, sw, dh, dw, pt, pl):
    """Paddle's im2col of x [N, C, H, W] for the output rows oy0 .. oy1 into cols
    [N, C * kh * kw, (oy1 - oy0) * wo] (row (c * kh + i) * kw + j holds tap (i, j) of channel
    c at every output position of those rows; taps outside x are zero): per output row, the
    zero edges and one contiguous copy of the inside, straight from x (no padded copy).  With
    a column stride sw > 1 the input rows the block reads are first split into their sw
    column phases (phase a of a row holds its columns a, a + sw, ...), so that a tap's row is
    a contiguous run of one phase too instead of a strided gather (ResNet's 7x7/2 stem: 2x
    faster).  At stride 1 with an output as wide as x (3x3 with padding 1), a tap's rows are
    one run of x's plane shifted by the tap's offset: one long copy, then the edge columns
    zeroed (ResNet's 14x14 and 7x7 maps: short rows of 14 or 7).  Unsigned indices."""
    n, c, h, wd = x.shape
    xf = x.ravel()
    cf = cols.reshape(cols.size)
    rows = oy1 - oy0
    zero = cols.dtype.type(0)
    if sw == 1:  # x is its own single phase
        r0, nr, wq = 0, h, wd
        src_f = xf
    else:
        r0 = min(h, max(0, oy0 * sh - pt))  # the input rows of the block's taps: r0 .. r0+nr
        nr = max(0, min(h, (oy1 - 1) * sh + (kh - 1) * dh - pt + 1) - r0)
        wq = (wd + sw - 1) // sw
        src_f = np.empty(n * c * nr * sw * wq, dtype=x.dtype)
        usw = np.uint64(sw)
        for plane in range(n * c):
            for r in range(nr):
                src = np.uint64((plane * h + r0 + r) * wd)
                for a in range(sw):
                    dst = np.uint64(((plane * nr + r) * sw + a) * wq)
                    ua = np.uint64(a)
                    for q in range((wd - a + sw - 1) // sw):
                        uq = np.uint64(q)
                        src_f[dst + uq] = xf[src + ua + uq * usw]
    for j in range(kw):
        # the output columns whose tap j lies inside x: ox in [lo, hi); input column
        # ox * sw + off = (ox + k) * sw + a: column ox + k of phase a
        off = j * dw - pl
        lo = min(wo, max(0, (-off + sw - 1) // sw))
        hi = max(lo, min(wo, (wd - off + sw - 1) // sw))
        a = off % sw
        k = off // sw
        for b in range(n):
            for ch in range(c):
                plane = b * c + ch
                for i in range(kh):
                    row = np.uint64(((plane * kh + i) * kw + j) * rows * wo)
                    if sh == 1 and sw == 1 and wo == wd:
                        _tap_rows(xf, cf, row, plane * h * wd, h, wd, oy0, oy1, i * dh - pt,
                                  off, lo, hi, zero)
                        continue
                    for oy in range(oy0, oy1):
                        iy = oy * sh + i * dh - pt
                        dst = row + np.uint64((oy - oy0) * wo)
                        if iy < 0 or iy >= h:
                            for q in range(wo):
                                cf[dst + np.uint64(q)] = zero
                            continue
                        for q in range(lo):
                            cf[dst + np.uint64(q)] = zero
                        for q in range(hi, wo):
                            cf[dst + np.uint64(q)] = zero
                        src = np.uint64(((plane * nr + iy - r0) * sw + a) * wq + lo + k)
                        d = dst + np.uint64(lo)
                        for q in range(hi - lo):
                            uq = np.uint64(q)
                            cf[d + uq] = src_f[src + uq]


@_JIT
def _tap_rows(xf, cf, row, base, h, w, oy0, oy1, dy, off, lo, hi, zero):
    """im2col's rows oy0 .. oy1 of one tap at stride 1 where the output is as wide as x (w):
    cf[row + (oy - oy0) * w + q] = x[oy + dy, q + off] of the plane at xf[base:], zero
    outside x.  The rows inside x are one run of the plane (row oy + dy continues where row
    oy + dy - 1 ends), copied at once; what that copy puts in the columns outside x (the
    neighbouring row's ends: q < lo or q >= hi) is zeroed after it."""
    ya = min(oy1, max(oy0, -dy))  # the output rows whose input row is inside x: ya .. yb
    yb = max(ya, min(oy1, h - dy))
    uw = np.uint64(w)
    for q in range(np.uint64((ya - oy0) * w)):
        cf[row + q] = zero
    for q in range(np.uint64((yb - oy0) * w), np.uint64((oy1 - oy0) * w)):
        cf[row + q] = zero
    if yb == ya:
        return
    n = (yb - ya) * w
    src = base + (ya + dy) * w + off  # may start before the plane or end past it by |off|,
    t0 = max(0, base - src)           # only in columns the edges zero
    t1 = min(n, base + h * w - src)
    d = row + np.uint64((ya - oy0) * w)
    s0 = np.uint64(src + t0)
    d0 = d + np.uint64(t0)
    for t in range(np.uint64(max(0, t1 - t0))):
        cf[d0 + t] = xf[s0 + t]
    for r in range(np.uint64(yb - ya)):
        e = d + r * uw
        for q in range(np.uint64(lo)):
            cf[e + q] = zero
        for q in range(np.uint64(hi), uw):
            cf[e + q] = zero


_PAIRWISE_BLOCK = 128  # numpy's PW_BLOCKSIZE


@_JIT
def _pairwise_sum(a, start, n, square, shift):
    """The sum of a[start:start + n] (of (a - shift)**2, each difference and square rounded,
    when ``square``) in numpy's order (``add.reduce`` over a contiguous row: pairwise_sum of
    loops_utils.h, eight accumulators up to 128 elements, halves above): the same bits as
    numpy's float32 / float64 sum."""
    if n < 8:
        res = a.dtype.type(0)
        for i in range(start, start + n):
            v = a[i] - shift if square else a[i]
            res += v * v if square else v
        return res
    if n <= _PAIRWISE_BLOCK:
        r = np.empty(8, dtype=a.dtype)
        for j in range(8):
            v = a[start + j] - shift if square else a[start + j]
            r[j] = v * v if square else v
        i = 8
        stop = n - n % 8
        while i < stop:
            for j in range(8):
                v = a[start + i + j] - shift if square else a[start + i + j]
                r[j] += v * v if square else v
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            v = a[start + i] - shift if square else a[start + i]
            res += v * v if square else v
            i += 1
        return res
    half = n // 2
    half -= half % 8
    return (_pairwise_sum(a, start, half, square, shift)
            + _pairwise_sum(a, start + half, n - half, square, shift))


@numba.njit(cache=True, nogil=True, error_model="numpy")
def layer_norm(x, scale, bias, epsilon, y, mean, variance, affine):
    """layer_norm over the rows of x [rows, n] (C-contiguous) into y, mean [rows], variance
    [rows]: the numpy path's operations in its order and dtype, each rounded (mean = sum / n,
    variance = sum((x - mean)**2) / n with numpy's pairwise sums, y = (x - mean) /
    sqrt(variance + T(epsilon)), then * scale[k] when affine & 1, + bias[k] when affine & 2):
    the same bits, in one call instead of ten."""
    rows, n = x.shape
    t = x.dtype.type
    count = t(n)
    eps = t(epsilon)
    zero = t(0)
    xf = x.reshape(rows * n)
    yf = y.reshape(rows * n)
    for r in range(rows):
        base = r * n
        m = (zero + _pairwise_sum(xf, base, n, False, zero)) / count
        v = (zero + _pairwise_sum(xf, base, n, True, m)) / count
        std = np.sqrt(v + eps)
        for k in range(n):
            w = (xf[base + k] - m) / std
            if affine & 1:
                w = w * scale[k]
            if affine & 2:
                w = w + bias[k]
            yf[base + k] = w
        mean[r] = m
        variance[r] = v


# special.ERFC_P, the loops' own copy: numba's cache is keyed by this file alone, so constants
# compiled in from another module would go stale when only that module changes (a test keeps
# the two equal)
_ERFC_P = (-0.6717940851388154, 0.6726431549216213, 0.04734341643693044, -0.04689364399185815,
           -0.00987452046267413, 0.008808847334090202, 0.0017705967296260954,
           -0.002288821720839572, -0.00018263344671821694, 0.0005738291318443407,
           -3.2259167115437e-05, -8.730891487273462e-05, 1.3424375825076774e-05)


@numba.njit(cache=True, nogil=True, error_model="numpy")
def gelu_erf(x, out):
    """gelu's exact form into out (x's size, C-contiguous), each element as
    activation.gelu_erfc computes it: in double, erf(w) = 1 - erfc(|w|) from _ERFC_P with w's
    sign, 0.5 d (1 + erf(d / sqrt 2)), rounded to out's dtype; the same operations in the
    same order (the same bits where numpy's float64 exp is the C library's, as on CPUs
    without AVX-512), in one call instead of ~35."""
    xf = x.reshape(x.size)
    of = out.reshape(out.size)
    for i in range(xf.size):
        d = np.float64(xf[i])
        w = d * 0.7071067811865476
        a = abs(w)
        t = 2.0 / (a + 2.0)
        s = t * 2.0 - 1.0
        p = s * _ERFC_P[12] + _ERFC_P[11]
        for k in range(10, -1, -1):
            p = p * s + _ERFC_P[k]
        p = np.exp(p - a * a) * t  # erfc(|w|)
        p = 1.0 - p  # erf(|w|)
        if w < 0:
            p = -p
        of[i] = (p + 1.0) * d * 0.5


@numba.njit(cache=True, nogil=True, error_model="numpy")
def softmax(x, out, clip):
    """softmax over the rows of x [rows, n] (C-contiguous) into out: the numpy path's
    operations (row maximum, NaN kept; x - max; below ``clip`` -> clip; exp; times 1 / the
    row's pairwise sum), exp taken from the C library where numpy may use its own SIMD exp
    (within ~8 ulp of the numpy path: numpy's float32 exp is the less exact), in one call
    instead of seven."""
    rows, n = x.shape
    one = x.dtype.type(1)
    zero = x.dtype.type(0)
    xf = x.reshape(rows * n)
    of = out.reshape(rows * n)
    for r in range(rows):
        base = r * n
        m = xf[base]
        for k in range(1, n):
            v = xf[base + k]
            if not m >= v and m == m:  # a larger value, or NaN (which then stays)
                m = v
        for k in range(n):
            e = xf[base + k] - m
            if e < clip:
                e = clip
            of[base + k] = np.exp(e)
        inv = one / (zero + _pairwise_sum(of, base, n, False, zero))
        for k in range(n):
            of[base + k] = of[base + k] * inv
