"""Window arithmetic as Paddle 2.6.2's C++ does it: output sizes with int division
(truncation toward zero), partial windows of inputs smaller than their window, paddings larger
than the kernel, SAME / VALID.  Hypothesis sweeps small geometries against float64 definitions
written from Paddle's loops (im2col_common, col2im, Pool2dFunctor), and the strided views are
checked to stay inside their buffers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unittest import mock

import phi.infermeta
from phi.common.int_array import IntArray
from phi.core.errors import Fatal, InvalidArgument
from phi.kernels.funcs.windows import overhang, strided_view
from tests.phi.kernels import test_nn_support

# kernels of this family beside test_nn_support's: (InferMeta, number of outputs)
WINDOW_KERNELS = {
    "conv2d_transpose": (phi.infermeta.conv_transpose_infer_meta, 1),
}


def run_kernel(name: str, inputs: list, attrs: list):
    """test_nn_support.run_kernel (InferMeta, then the CPU kernel, shapes checked) for the
    kernels of this family too."""
    with mock.patch.dict(test_nn_support.KERNELS, WINDOW_KERNELS):
        return test_nn_support.run_kernel(name, inputs, attrs)

FLT_MAX = float(np.finfo(np.float32).max)


def cdiv(a: int, b: int) -> int:
    """C++ int division."""
    return int(a / b) if abs(a) < 2**52 else -(-a // b)


def paddle_pads(pads, algorithm, sizes, strides, ksize, dilations):
    """UpdatePaddingAndDilation, written from Paddle's formulas."""
    pads = list(pads) if len(pads) == 2 * len(sizes) else [p for p in pads for _ in (0, 1)]
    dilations = list(dilations)
    if algorithm == "SAME":
        for i, size in enumerate(sizes):
            out = cdiv(size + strides[i] - 1, strides[i])
            total = max((out - 1) * strides[i] + ksize[i] - size, 0)
            pads[2 * i], pads[2 * i + 1] = total // 2, total - total // 2
            dilations[i] = 1
    elif algorithm == "VALID":
        pads = [0] * len(pads)
    return pads, dilations


def ref_conv(x, w, strides, pads, dilations, groups):
    """im2col_common + GEMM: taps outside the input read 0; sizes by ConvOutSize."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    ho = cdiv(h + pads[0] + pads[1] - (dilations[0] * (kh - 1) + 1), strides[0]) + 1
    wo = cdiv(wd + pads[2] + pads[3] - (dilations[1] * (kw - 1) + 1), strides[1]) + 1
    if ho < 0 or wo < 0:
        return None
    out = np.zeros((n, o, ho, wo))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(kh):
            for j in range(kw):
                for oh in range(ho):
                    r = oh * strides[0] - pads[0] + i * dilations[0]
                    if not 0 <= r < h:
                        continue
                    for ow in range(wo):
                        q = ow * strides[1] - pads[2] + j * dilations[1]
                        if 0 <= q < wd:
                            out[:, oc, oh, ow] += x[:, g * cg:(g + 1) * cg, r, q].astype(
                                np.float64) @ w[oc, :, i, j].astype(np.float64)
    return out


def ref_conv_transpose(x, w, strides, pads, dilations, groups, out_hw):
    """GEMM + col2im: tap (i, j) of input (h, w) lands at h * s - pad + i * d if inside."""
    n, c_in, h, wd = x.shape
    _, og, kh, kw = w.shape
    out = np.zeros((n, og * groups, *out_hw))
    cg = c_in // groups
    for ic in range(c_in):
        g = ic // cg
        for i in range(kh):
            for j in range(kw):
                for ih in range(h):
                    r = ih * strides[0] - pads[0] + i * dilations[0]
                    if not 0 <= r < out_hw[0]:
                        continue
                    for iw in range(wd):
                        q = iw * strides[1] - pads[2] + j * dilations[1]
                        if 0 <= q < out_hw[1]:
                            out[:, g * og:(g + 1) * og, r, q] += \
                                x[:, ic, ih, iw, None].astype(np.float64) * w[ic, :, i, j]
    return out


def ref_pool(x, ksize, strides, pads, ceil_mode, exclusive, kind):
    """Pool2dFunctor<CPU>: its hstart / hend / pool_size, line by line."""
    n, c, h, wd = x.shape
    extra = [s - 1 if ceil_mode else 0 for s in strides]
    ho = cdiv(h - ksize[0] + pads[0] + pads[1] + extra[0], strides[0]) + 1
    wo = cdiv(wd - ksize[1] + pads[2] + pads[3] + extra[1], strides[1]) + 1
    if ho <= 0 or wo <= 0:
        return None
    out = np.zeros((n, c, ho, wo))
    for ph in range(ho):
        for pw in range(wo):
            hs, ws = ph * strides[0] - pads[0], pw * strides[1] - pads[2]
            he = min(hs + ksize[0], h + pads[0])
            we = min(ws + ksize[1], wd + pads[2])
            size = (he - hs) * (we - ws)
            hs, ws, he, we = max(hs, 0), max(ws, 0), min(he, h), min(we, wd)
            part = x[:, :, hs:max(he, hs), ws:max(we, ws)].astype(np.float64)
            if kind == "max":
                best = np.full((n, c), -FLT_MAX)
                if part.size:
                    best = np.maximum(best, part.max(axis=(2, 3)))
                out[:, :, ph, pw] = best
            else:
                if exclusive:
                    size = (he - hs) * (we - ws)
                with np.errstate(all="ignore"):
                    out[:, :, ph, pw] = part.sum(axis=(2, 3)) / np.float64(size)
    return out


GEOMETRY = dict(h=st.integers(1, 6), w=st.integers(1, 6), kh=st.integers(1, 5),
                kw=st.integers(1, 5), sh=st.integers(1, 4), sw=st.integers(1, 4),
                pads=st.lists(st.integers(0, 5), min_size=4, max_size=4),
                algorithm=st.sampled_from(["EXPLICIT", "EXPLICIT", "SAME", "VALID"]))


@settings(max_examples=150, deadline=None)
@given(**GEOMETRY, dh=st.integers(1, 3), dw=st.integers(1, 3), groups=st.integers(1, 2),
       depthwise=st.booleans(), nhwc=st.booleans())
def test_conv2d_any_geometry(h, w, kh, kw, sh, sw, pads, algorithm, dh, dw, groups, depthwise,
                             nhwc):
    rng = np.random.default_rng(h * 1000 + w * 100 + kh * 10 + kw)
    c = 3 if depthwise else 2 * groups
    groups = c if depthwise else groups
    x = rng.standard_normal((2, c, h, w))
    f = rng.standard_normal((c * 2 if depthwise else 2 * groups, c // groups, kh, kw))
    op = "depthwise_conv2d" if depthwise else "conv2d"
    rp, rd = paddle_pads(pads, algorithm, (h, w), (sh, sw), (kh, kw), (dh, dw))
    want = ref_conv(x, f, (sh, sw), rp, rd, groups)
    xin = np.ascontiguousarray(x.transpose(0, 2, 3, 1)) if nhwc else x
    fmt = "NHWC" if nhwc else "NCHW"
    attrs = ([[sh, sw], pads, algorithm, groups, [dh, dw], fmt] if depthwise else
             [[sh, sw], pads, algorithm, [dh, dw], groups, fmt])
    if want is None:
        with pytest.raises(InvalidArgument, match="at least 0"):
            run_kernel(op, [xin, f], attrs)
        return
    got = run_kernel(op, [xin, f], attrs)
    if nhwc:
        got = got.transpose(0, 3, 1, 2)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@settings(max_examples=100, deadline=None)
@given(**GEOMETRY, dh=st.integers(1, 3), dw=st.integers(1, 3), groups=st.integers(1, 2),
       out_pad=st.booleans())
def test_conv2d_transpose_any_geometry(h, w, kh, kw, sh, sw, pads, algorithm, dh, dw, groups,
                                       out_pad):
    rng = np.random.default_rng(h * 1000 + w * 100 + kh * 10 + kw)
    x = rng.standard_normal((1, 2 * groups, h, w))
    f = rng.standard_normal((2 * groups, 2, kh, kw))
    rp, rd = paddle_pads(pads, algorithm, (h, w), (sh, sw), (kh, kw), (dh, dw))
    out_hw = [(size - 1) * s - rp[2 * i] - rp[2 * i + 1] + rd[i] * (k - 1) + 1
              for i, (size, s, k) in enumerate(((h, sh, kh), (w, sw, kw)))]
    opad = [max(sh, rd[0]) - 1, max(sw, rd[1]) - 1] if out_pad else []
    out_hw = [o + p for o, p in zip(out_hw, opad or [0, 0], strict=True)]
    attrs = [[sh, sw], pads, opad, IntArray([]), algorithm, groups, [dh, dw], "NCHW"]
    if min(out_hw) < 0:
        with pytest.raises(InvalidArgument, match="at least 0"):
            run_kernel("conv2d_transpose", [x, f], attrs)
        return
    got = run_kernel("conv2d_transpose", [x, f], attrs)
    want = ref_conv_transpose(x, f, (sh, sw), rp, rd, groups, out_hw)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@settings(max_examples=150, deadline=None)
@given(**GEOMETRY, ceil_mode=st.booleans(), exclusive=st.booleans(),
       kind=st.sampled_from(["max", "avg"]), nhwc=st.booleans())
def test_pool2d_any_geometry(h, w, kh, kw, sh, sw, pads, algorithm, ceil_mode, exclusive, kind,
                             nhwc):
    rng = np.random.default_rng(h * 1000 + w * 100 + kh * 10 + kw)
    x = rng.standard_normal((1, 2, h, w))
    rp, _ = paddle_pads(pads, algorithm, (h, w), (sh, sw), (kh, kw), (1, 1))
    want = ref_pool(x, (kh, kw), (sh, sw), rp, ceil_mode, exclusive, kind)
    xin = np.ascontiguousarray(x.transpose(0, 2, 3, 1)) if nhwc else x
    attrs = [IntArray([kh, kw]), [sh, sw], pads, ceil_mode, exclusive,
             "NHWC" if nhwc else "NCHW", kind, False, False, algorithm]
    if want is None:
        with pytest.raises(InvalidArgument, match="greater than 0"):
            run_kernel("pool2d", [xin], attrs)
        return
    got = run_kernel("pool2d", [xin], attrs)
    if nhwc:
        got = got.transpose(0, 3, 1, 2)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10, equal_nan=True)


# -- the bounds of strided views ----------------------------------------------------------------

def test_strided_view_refuses_a_view_past_its_buffer():
    x = np.arange(12.0).reshape(3, 4)
    v = strided_view(np, x, (2, 2, 2, 2), (32, 8, 32, 8))  # 2x2 windows, stride 1: inside
    assert v[1, 1].tolist() == [[5.0, 6.0], [9.0, 10.0]]
    with pytest.raises(Fatal, match="would end at byte"):
        strided_view(np, x, (2, 4, 2, 2), (32, 8, 32, 8))  # reaches past the last element
    with pytest.raises(Fatal, match="C-contiguous"):
        strided_view(np, x.T, (2,), (8,))
    assert strided_view(np, x, (0, 5), (8, 8)).shape == (0, 5)  # empty views read nothing


@pytest.mark.parametrize("size, before, after, n_out, stride, span, want", [
    (2, 0, 0, 1, 2, 3, 1),    # (2 - 3) / 2 + 1 = 1 in C++: the window overhangs by 1
    (5, 0, 0, 2, 3, 2, 0),    # ordinary: the last window ends inside
    (3, 1, 0, 1, 2, 7, 3),
    (4, 2, 2, 3, 2, 3, 0),
])
def test_overhang(size, before, after, n_out, stride, span, want):
    assert overhang(size, before, after, n_out, stride, span) == want


# -- 3-D: conv3d and conv3d_transpose against N-d definitions ----------------------------------

def ref_conv_nd(x, w, strides, pads, dilations, groups):
    """im2col in N dimensions, one filter tap at a time: taps outside the input read 0."""
    import itertools
    spatial, ksize = x.shape[2:], w.shape[2:]
    out = [cdiv(size + pads[2 * i] + pads[2 * i + 1] - (dilations[i] * (ksize[i] - 1) + 1),
                strides[i]) + 1 for i, size in enumerate(spatial)]
    if min(out) < 0:
        return None
    n, o = x.shape[0], w.shape[0]
    cg, og = w.shape[1], o // groups
    res = np.zeros((n, o, *out))
    for tap in itertools.product(*(range(k) for k in ksize)):
        idx, ok = [], np.ones(out, bool)
        for i, t in enumerate(tap):
            pos = np.arange(out[i]) * strides[i] - pads[2 * i] + t * dilations[i]
            shape = [1] * len(out)
            shape[i] = out[i]
            ok = ok & ((pos >= 0) & (pos < spatial[i])).reshape(shape)
            idx.append(np.clip(pos, 0, spatial[i] - 1).reshape(shape))
        patch = x[(slice(None), slice(None), *idx)] * ok  # [N, C, *out]
        for g in range(groups):
            wt = w[(slice(g * og, (g + 1) * og), slice(None), *tap)]  # [og, cg]
            res[:, g * og:(g + 1) * og] += np.einsum(
                "oc,nc...->no...", wt, patch[:, g * cg:(g + 1) * cg])
    return res


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(1, 5), min_size=3, max_size=3),
       ksize=st.lists(st.integers(1, 4), min_size=3, max_size=3),
       strides=st.lists(st.integers(1, 3), min_size=3, max_size=3),
       dils=st.lists(st.integers(1, 2), min_size=3, max_size=3),
       pads=st.lists(st.integers(0, 4), min_size=6, max_size=6),
       algorithm=st.sampled_from(["EXPLICIT", "SAME", "VALID"]), groups=st.integers(1, 2))
def test_conv3d_any_geometry(sizes, ksize, strides, dils, pads, algorithm, groups):
    rng = np.random.default_rng(sum(sizes) * 100 + sum(ksize))
    x = rng.standard_normal((1, 2 * groups, *sizes))
    f = rng.standard_normal((2 * groups, 2, *ksize))
    rp, rd = paddle_pads(pads, algorithm, sizes, strides, ksize, dils)
    want = ref_conv_nd(x, f, strides, rp, rd, groups)
    attrs = [strides, pads, algorithm, groups, dils, "NCDHW"]
    with mock.patch.dict(WINDOW_KERNELS, {"conv3d": (phi.infermeta.conv3d_infer_meta, 1)}):
        if want is None:
            with pytest.raises(InvalidArgument, match="at least 0"):
                run_kernel("conv3d", [x, f], attrs)
            return
        got = run_kernel("conv3d", [x, f], attrs)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


# -- max_pool2d_with_index: Paddle's loop, ties, NaN, partial windows ----------------------------

def ref_max_with_index(x, ksize, strides, pads, adaptive):
    """MaxPool2dWithIndexFunctor: first maximum by ``ele < value`` in row-major order."""
    n, c, h, w = x.shape
    if adaptive:
        ho, wo = ksize
    else:
        ho = cdiv(h - ksize[0] + 2 * pads[0], strides[0]) + 1
        wo = cdiv(w - ksize[1] + 2 * pads[1], strides[1]) + 1
        if ho < 0 or wo < 0:
            return None, None
    out = np.full((n, c, ho, wo), -FLT_MAX)
    mask = np.full((n, c, ho, wo), -1, np.int32)
    for b in range(n):
        for ch in range(c):
            for ph in range(ho):
                if adaptive:
                    hs, he = (ph * h) // ho, -(-(ph + 1) * h // ho)
                else:
                    hs = ph * strides[0] - pads[0]
                    he, hs = min(hs + ksize[0], h), max(hs, 0)
                for pw in range(wo):
                    if adaptive:
                        ws, we = (pw * w) // wo, -(-(pw + 1) * w // wo)
                    else:
                        ws = pw * strides[1] - pads[1]
                        we, ws = min(ws + ksize[1], w), max(ws, 0)
                    for i in range(hs, he):
                        for j in range(ws, we):
                            if out[b, ch, ph, pw] < x[b, ch, i, j]:
                                out[b, ch, ph, pw] = x[b, ch, i, j]
                                mask[b, ch, ph, pw] = i * w + j
    return out, mask


@settings(max_examples=100, deadline=None)
@given(h=st.integers(1, 6), w=st.integers(1, 6), kh=st.integers(1, 4), kw=st.integers(1, 4),
       sh=st.integers(1, 3), sw=st.integers(1, 3), ph=st.integers(0, 3), pw=st.integers(0, 3),
       adaptive=st.booleans(), nan=st.booleans())
def test_max_pool2d_with_index_any_geometry(h, w, kh, kw, sh, sw, ph, pw, adaptive, nan):
    rng = np.random.default_rng(h * 1000 + w * 100 + kh * 10 + kw)
    x = rng.integers(-2, 3, (1, 2, h, w)).astype(np.float64)  # ties
    if nan:
        x[0, 0, 0, 0] = np.nan
    want, mask = ref_max_with_index(x, (kh, kw), (sh, sw), (ph, pw), adaptive)
    attrs = [[kh, kw], [sh, sw], [ph, pw], False, adaptive]
    kernels = {"max_pool2d_with_index": (phi.infermeta.max_pool_with_index_infer_meta, 2)}
    with mock.patch.dict(WINDOW_KERNELS, kernels):
        if want is None:
            with pytest.raises(InvalidArgument, match="negative"):
                run_kernel("max_pool2d_with_index", [x], attrs)
            return
        got, got_mask = run_kernel("max_pool2d_with_index", [x], attrs)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_mask, mask)


# -- unfold / fold: im2col and col2im -----------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(h=st.integers(1, 6), w=st.integers(1, 6), kh=st.integers(1, 4), kw=st.integers(1, 4),
       sh=st.integers(1, 3), sw=st.integers(1, 3), dh=st.integers(1, 2), dw=st.integers(1, 2),
       pads=st.lists(st.integers(0, 3), min_size=4, max_size=4))
def test_unfold_any_geometry(h, w, kh, kw, sh, sw, dh, dw, pads):
    """unfold = im2col_common: column (c, i, j) of block (bh, bw) is x[c, bh * sh - top + i *
    dh, bw * sw - left + j * dw], 0 outside; paddings [top, left, bottom, right]."""
    rng = np.random.default_rng(h * 1000 + w * 100 + kh * 10 + kw)
    x = rng.standard_normal((1, 2, h, w))
    top, left, bottom, right = pads
    bh = cdiv(h + top + bottom - (dh * (kh - 1) + 1), sh) + 1
    bw = cdiv(w + left + right - (dw * (kw - 1) + 1), sw) + 1
    attrs = [[kh, kw], [sh, sw], pads, [dh, dw]]
    kernels = {"unfold": (phi.infermeta.unfold_infer_meta, 1),
               "fold": (phi.infermeta.fold_infer_meta, 1)}
    with mock.patch.dict(WINDOW_KERNELS, kernels):
        if bh <= 0 or bw <= 0:
            with pytest.raises(InvalidArgument, match="positive integer"):
                run_kernel("unfold", [x], attrs)
            return
        got = run_kernel("unfold", [x], attrs)
        want = np.zeros((1, 2, kh, kw, bh, bw))
        for i in range(kh):
            for j in range(kw):
                for a in range(bh):
                    for b in range(bw):
                        r, q = a * sh - top + i * dh, b * sw - left + j * dw
                        if 0 <= r < h and 0 <= q < w:
                            want[0, :, i, j, a, b] = x[0, :, r, q]
        np.testing.assert_array_equal(got, want.reshape(1, 2 * kh * kw, bh * bw))
        if top == bottom and left == right:  # fold takes the same geometry back: the adjoint
            back = run_kernel("fold", [want.reshape(1, -1, bh * bw)], [[h, w], *attrs])
            ref = np.zeros((1, 2, h, w))
            for i in range(kh):
                for j in range(kw):
                    for a in range(bh):
                        for b in range(bw):
                            r, q = a * sh - top + i * dh, b * sw - left + j * dw
                            if 0 <= r < h and 0 <= q < w:
                                ref[0, :, r, q] += want[0, :, i, j, a, b]
            np.testing.assert_allclose(back, ref, rtol=1e-12, atol=1e-12)


# -- interp output sizes: static_cast<int>(in * scale) in float ---------------------------------

@pytest.mark.parametrize("in_size, scale, want", [
    (10, 0.7, 7),        # 10 * 0.7f = 7.0 in float (6.9999998 in double)
    (3, 0.3, 0),         # 0.9 truncates to 0: refused
    (2, 1e38, None),     # inf: INT_MIN on x86, refused
    (5, 1.5, 7),
])
def test_interp_out_size_is_a_float_product_truncated(in_size, scale, want):
    from phi.infermeta.funcs import float_to_int32, interp_out_sizes
    if not want:
        with pytest.raises(InvalidArgument, match="greater than 0"):
            interp_out_sizes((in_size,), (0,), [scale])
        return
    assert interp_out_sizes((in_size,), (0,), [scale])[0] == [want]
    assert float_to_int32(float("nan")) == float_to_int32(3e9) == -2**31
    assert float_to_int32(-2.7) == -2
