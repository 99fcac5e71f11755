"""Conformance cases for conv2d / depthwise_conv2d / conv3d, ported from the shapes and
attribute combinations of Paddle's test/legacy_test/test_conv2d_op.py and test_conv3d_op.py.

Inputs are built as Paddle's OpTest builds them (uniform(-1, 1) input and filter); the
reference is an independent float64 direct convolution written from Paddle's definition
(explicit / SAME / VALID padding_algorithm, asymmetric paddings, groups, dilations, NCHW and
NHWC). Tolerances are OpTest's defaults (float32 ``atol=1e-5`` relative to magnitude is too
tight for sums of 27+ products, so the test's own ``rtol=1e-5, atol=1e-4`` is used)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from fluid_compat import run_op


def _pads(in_sz, k_sz, strides, dilations, paddings, algo):
    """Per spatial dim (before, after) paddings as Paddle's UpdatePaddingAndDilation computes."""
    nd = len(in_sz)
    if algo == "VALID":
        return [(0, 0)] * nd, dilations
    if algo == "SAME":
        out = []
        for i in range(nd):
            o = (in_sz[i] + strides[i] - 1) // strides[i]
            total = max((o - 1) * strides[i] + k_sz[i] - in_sz[i], 0)
            out.append((total // 2, total - total // 2))
        return out, [1] * nd  # SAME resets dilations to 1
    if len(paddings) == nd:
        return [(p, p) for p in paddings], dilations
    return [(paddings[2 * i], paddings[2 * i + 1]) for i in range(nd)], dilations


def conv_ref(x, w, strides, paddings, dilations, groups, algo="EXPLICIT", channel_last=False):
    """float64 grouped, dilated direct convolution over any number of spatial dims."""
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    if channel_last:
        x = np.moveaxis(x, -1, 1)
    nd = x.ndim - 2
    pads, dil = _pads(x.shape[2:], w.shape[2:], strides, dilations, paddings, algo)
    xp = np.pad(x, [(0, 0), (0, 0), *pads])
    n, c = x.shape[:2]
    m = w.shape[0]
    cg, mg = c // groups, m // groups
    ek = [(w.shape[2 + i] - 1) * dil[i] + 1 for i in range(nd)]
    osz = [(xp.shape[2 + i] - ek[i]) // strides[i] + 1 for i in range(nd)]
    out = np.zeros((n, m, *osz))
    for g in range(groups):
        xg = xp[:, g * cg:(g + 1) * cg]
        wg = w[g * mg:(g + 1) * mg]
        for kidx in itertools.product(*[range(k) for k in w.shape[2:]]):
            sl = tuple(slice(kidx[i] * dil[i], kidx[i] * dil[i] + (osz[i] - 1) * strides[i] + 1,
                             strides[i]) for i in range(nd))
            patch = xg[(slice(None), slice(None), *sl)]
            out[:, g * mg:(g + 1) * mg] += np.einsum("nc...,mc->nm...", patch,
                                                      wg[(slice(None), slice(None), *kidx)])
    return np.moveaxis(out, 1, -1) if channel_last else out


# (name, input NCHW shape, filter shape, strides, paddings, dilations, groups, algo)
CONV2D = [
    ("base", [2, 3, 5, 5], [6, 3, 3, 3], [1, 1], [0, 0], [1, 1], 1, "EXPLICIT"),
    ("pad", [2, 3, 5, 5], [6, 3, 3, 3], [1, 1], [1, 1], [1, 1], 1, "EXPLICIT"),
    ("stride", [2, 3, 6, 6], [6, 3, 3, 3], [2, 2], [1, 1], [1, 1], 1, "EXPLICIT"),
    ("group", [2, 3, 5, 5], [18, 1, 3, 3], [1, 1], [0, 0], [1, 1], 3, "EXPLICIT"),
    ("1x1", [2, 3, 5, 5], [120, 1, 1, 1], [1, 1], [0, 0], [1, 1], 3, "EXPLICIT"),
    ("dilation", [2, 3, 10, 10], [12, 1, 3, 3], [1, 1], [0, 0], [2, 2], 3, "EXPLICIT"),
    ("input1x1_filter1x1", [100, 3, 1, 1], [120, 3, 1, 1], [1, 1], [0, 0], [1, 1], 1,
     "EXPLICIT"),
    ("asy_pad", [2, 3, 5, 5], [6, 3, 4, 3], [1, 2], [0, 0, 1, 2], [1, 1], 1, "EXPLICIT"),
    ("asy_pad_stride", [2, 3, 6, 6], [6, 3, 3, 3], [2, 2], [1, 1, 0, 1], [1, 1], 1,
     "EXPLICIT"),
    ("asy_pad_group", [2, 3, 5, 5], [24, 1, 3, 3], [1, 1], [1, 3, 2, 1], [1, 1], 3,
     "EXPLICIT"),
    ("asy_pad_dilation", [2, 3, 10, 10], [24, 1, 3, 3], [1, 1], [1, 3, 2, 1], [2, 2], 3,
     "EXPLICIT"),
    ("same", [2, 3, 5, 5], [6, 3, 4, 3], [1, 2], [0, 0], [1, 1], 1, "SAME"),
    ("same_stride", [2, 3, 6, 6], [6, 3, 3, 3], [2, 2], [1, 1], [1, 1], 1, "SAME"),
    ("same_dilation_ignored", [2, 3, 10, 10], [24, 1, 3, 3], [1, 1], [1, 3, 2, 1], [2, 2], 3,
     "SAME"),
    ("valid", [2, 3, 5, 5], [6, 3, 4, 3], [1, 2], [1, 1], [1, 1], 1, "VALID"),
    ("valid_group", [2, 3, 5, 5], [24, 1, 3, 3], [1, 1], [2, 1], [1, 1], 3, "VALID"),
]


def _data(shape_x, shape_w, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, shape_x)
    w = rng.uniform(-1, 1, shape_w)
    return x.astype(dtype), w.astype(dtype)


TOL = {"float32": (1e-5, 1e-4), "float64": (1e-7, 1e-7)}


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CONV2D, ids=[c[0] for c in CONV2D])
def test_conv2d(case, dtype, fmt):
    _, xs, ws, strides, pads, dil, groups, algo = case
    x, w = _data(xs, ws, dtype)
    if fmt == "NHWC":
        x = np.ascontiguousarray(np.moveaxis(x, 1, -1))
    attrs = dict(strides=strides, paddings=pads, dilations=dil, groups=groups,
                 padding_algorithm=algo, data_format=fmt)
    out = run_op("conv2d", {"Input": x, "Filter": w}, attrs)["Output"][0]
    ref = conv_ref(x, w, strides, pads, dil, groups, algo, channel_last=fmt == "NHWC")
    assert out.dtype == np.dtype(dtype)
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(out, ref, rtol=rtol, atol=atol)


# depthwise_conv2d: Paddle's TestDepthwiseConv* (groups == channels, multiplier 1 or 2)
DEPTHWISE = [
    ("base", [2, 3, 5, 5], [3, 1, 3, 3], [2, 2], [1, 1], [1, 1], 3, "EXPLICIT"),
    ("multiplier", [2, 3, 5, 5], [6, 1, 3, 3], [2, 2], [1, 1], [1, 1], 3, "EXPLICIT"),
    ("stride1", [2, 3, 5, 5], [6, 1, 3, 3], [1, 1], [1, 1], [1, 1], 3, "EXPLICIT"),
    ("dilation", [2, 3, 5, 5], [24, 1, 3, 3], [1, 1], [1, 1], [2, 2], 3, "EXPLICIT"),
    ("asy_pad", [2, 3, 5, 5], [6, 1, 3, 3], [2, 2], [1, 1, 0, 1], [1, 1], 3, "EXPLICIT"),
    ("same", [2, 3, 5, 5], [6, 1, 3, 3], [2, 2], [0, 0], [1, 1], 3, "SAME"),
    ("valid", [2, 3, 5, 5], [6, 1, 3, 3], [1, 1], [1, 1], [1, 1], 3, "VALID"),
]


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", DEPTHWISE, ids=[c[0] for c in DEPTHWISE])
def test_depthwise_conv2d(case, dtype, fmt):
    _, xs, ws, strides, pads, dil, groups, algo = case
    x, w = _data(xs, ws, dtype, seed=1)
    if fmt == "NHWC":
        x = np.ascontiguousarray(np.moveaxis(x, 1, -1))
    attrs = dict(strides=strides, paddings=pads, dilations=dil, groups=groups,
                 padding_algorithm=algo, data_format=fmt)
    out = run_op("depthwise_conv2d", {"Input": x, "Filter": w}, attrs)["Output"][0]
    ref = conv_ref(x, w, strides, pads, dil, groups, algo, channel_last=fmt == "NHWC")
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(out, ref, rtol=rtol, atol=atol)


# conv3d: Paddle's TestConv3DOp family
CONV3D = [
    ("base", [2, 3, 4, 4, 4], [6, 3, 3, 3, 3], [1, 1, 1], [0, 0, 0], [1, 1, 1], 1, "EXPLICIT"),
    ("pad", [2, 3, 4, 4, 4], [6, 3, 3, 3, 3], [1, 1, 1], [1, 1, 1], [1, 1, 1], 1, "EXPLICIT"),
    ("stride", [2, 3, 4, 4, 4], [6, 3, 3, 3, 3], [2, 2, 2], [1, 1, 1], [1, 1, 1], 1,
     "EXPLICIT"),
    ("group", [2, 3, 4, 4, 4], [6, 1, 3, 3, 3], [1, 1, 1], [0, 0, 0], [1, 1, 1], 3,
     "EXPLICIT"),
    ("dilation", [2, 3, 6, 6, 6], [6, 3, 2, 2, 2], [1, 1, 1], [0, 0, 0], [2, 2, 2], 1,
     "EXPLICIT"),
    ("asy_pad", [2, 3, 4, 4, 4], [6, 3, 3, 3, 3], [1, 1, 2], [0, 0, 1, 0, 0, 2], [1, 1, 1], 1,
     "EXPLICIT"),
    ("same", [2, 3, 4, 5, 6], [6, 3, 3, 3, 3], [1, 2, 1], [0, 0, 0], [1, 1, 1], 1, "SAME"),
    ("valid", [2, 3, 4, 5, 6], [6, 3, 3, 3, 3], [1, 1, 1], [1, 1, 1], [1, 1, 1], 1, "VALID"),
]


@pytest.mark.parametrize("fmt", ["NCDHW", "NDHWC"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CONV3D, ids=[c[0] for c in CONV3D])
def test_conv3d(case, dtype, fmt):
    _, xs, ws, strides, pads, dil, groups, algo = case
    x, w = _data(xs, ws, dtype, seed=2)
    if fmt == "NDHWC":
        x = np.ascontiguousarray(np.moveaxis(x, 1, -1))
    attrs = dict(strides=strides, paddings=pads, dilations=dil, groups=groups,
                 padding_algorithm=algo, data_format=fmt)
    out = run_op("conv3d", {"Input": x, "Filter": w}, attrs)["Output"][0]
    ref = conv_ref(x, w, strides, pads, dil, groups, algo, channel_last=fmt == "NDHWC")
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(out, ref, rtol=rtol, atol=atol)


def conv_transpose_ref(x, w, strides, paddings, dilations, groups, algo, output_padding,
                       output_size, channel_last=False):
    """float64 transposed convolution: scatter every input pixel times the filter."""
    x = x.astype(np.float64)
    if channel_last:
        x = np.moveaxis(x, -1, 1)
    w = w.astype(np.float64)
    n, c, h, wd = x.shape
    pads, dil = _pads([h, wd], w.shape[2:], strides, dilations, paddings, algo)
    kh, kw = w.shape[2:]
    full = [(h - 1) * strides[0] + dil[0] * (kh - 1) + 1,
            (wd - 1) * strides[1] + dil[1] * (kw - 1) + 1]
    cg, mg = c // groups, w.shape[1]
    buf = np.zeros((n, mg * groups, full[0] + 8, full[1] + 8))
    for g in range(groups):
        for i, j in itertools.product(range(kh), range(kw)):
            contrib = np.einsum("nchw,cm->nmhw", x[:, g * cg:(g + 1) * cg],
                                w[g * cg:(g + 1) * cg, :, i, j])
            rows = slice(i * dil[0], i * dil[0] + (h - 1) * strides[0] + 1, strides[0])
            cols = slice(j * dil[1], j * dil[1] + (wd - 1) * strides[1] + 1, strides[1])
            buf[:, g * mg:(g + 1) * mg, rows, cols] += contrib
    if output_size:
        osz = output_size
    else:
        osz = [full[d] - pads[d][0] - pads[d][1] + (output_padding[d] if output_padding else 0)
               for d in range(2)]
    out = buf[:, :, pads[0][0]:pads[0][0] + osz[0], pads[1][0]:pads[1][0] + osz[1]]
    return np.moveaxis(out, 1, -1) if channel_last else out


# test_conv2d_transpose_op.py: (name, x, filter [C, M/groups, kh, kw], strides, paddings,
# dilations, groups, algo, output_padding, output_size)
CONVT = [
    ("base", [2, 3, 5, 5], [3, 6, 3, 3], [1, 1], [0, 0], [1, 1], 1, "EXPLICIT", [], []),
    ("pad", [2, 3, 5, 5], [3, 6, 3, 3], [1, 1], [1, 1], [1, 1], 1, "EXPLICIT", [], []),
    ("stride", [2, 3, 5, 5], [3, 6, 3, 3], [2, 2], [1, 1], [1, 1], 1, "EXPLICIT", [], []),
    ("group", [2, 4, 5, 5], [4, 3, 3, 3], [1, 1], [1, 1], [1, 1], 2, "EXPLICIT", [], []),
    ("dilation", [2, 3, 5, 5], [3, 6, 3, 3], [1, 1], [1, 1], [2, 2], 1, "EXPLICIT", [], []),
    ("asy_pad", [2, 3, 5, 5], [3, 6, 3, 3], [1, 1], [1, 0, 1, 2], [1, 1], 1, "EXPLICIT", [],
     []),
    ("output_padding", [2, 3, 5, 5], [3, 6, 3, 3], [2, 2], [1, 1], [1, 1], 1, "EXPLICIT",
     [1, 1], []),
    ("output_size", [2, 3, 5, 5], [3, 6, 3, 3], [2, 2], [1, 1], [1, 1], 1, "EXPLICIT", [],
     [10, 10]),
    ("same", [2, 3, 5, 5], [3, 6, 3, 3], [2, 2], [0, 0], [1, 1], 1, "SAME", [], []),
    ("valid", [2, 3, 5, 5], [3, 6, 3, 3], [1, 1], [1, 1], [1, 1], 1, "VALID", [], []),
]


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CONVT, ids=[c[0] for c in CONVT])
def test_conv2d_transpose(case, dtype, fmt):
    _, xs, ws, strides, pads, dil, groups, algo, opad, osize = case
    x, w = _data(xs, ws, dtype, seed=3)
    if fmt == "NHWC":
        x = np.ascontiguousarray(np.moveaxis(x, 1, -1))
    attrs = dict(strides=strides, paddings=pads, dilations=dil, groups=groups,
                 padding_algorithm=algo, data_format=fmt, output_padding=opad,
                 output_size=osize)
    out = run_op("conv2d_transpose", {"Input": x, "Filter": w}, attrs)["Output"][0]
    ref = conv_transpose_ref(x, w, strides, pads, dil, groups, algo, opad, osize,
                             channel_last=fmt == "NHWC")
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(out, ref, rtol=rtol, atol=atol)
