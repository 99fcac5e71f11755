"""Conformance cases for pool2d / pool3d / max_pool2d_with_index, ported from the attribute
combinations of Paddle's test/legacy_test/test_pool2d_op.py, test_pool3d_op.py and
test_pool_max_op.py (max/avg, global_pooling, exclusive, adaptive, ceil_mode,
padding_algorithm SAME/VALID, asymmetric paddings, channel-last layouts).

The float64 reference is written from Paddle's pooling definition: a window starts at
``o * stride - pad_before`` and ends at ``min(start + ksize, in + pad_before)`` (Paddle's CPU
result, not the OpTest reference's ``pad_after``); the non-exclusive
average divides by that padded window, then the window is clipped to the input; the exclusive
average divides by the clipped window; adaptive windows are ``[floor(o*in/out),
ceil((o+1)*in/out))``."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from fluid_compat import run_op


def _geometry(in_sz, ksize, strides, paddings, algo, ceil_mode):
    nd = len(in_sz)
    if len(paddings) == nd:
        pads = [(p, p) for p in paddings]
    else:
        pads = [(paddings[2 * i], paddings[2 * i + 1]) for i in range(nd)]
    if algo == "VALID":
        pads = [(0, 0)] * nd
    elif algo == "SAME":
        pads = []
        for i in range(nd):
            o = (in_sz[i] + strides[i] - 1) // strides[i]
            total = max((o - 1) * strides[i] + ksize[i] - in_sz[i], 0)
            pads.append((total // 2, total - total // 2))
    outs = []
    for i in range(nd):
        span = in_sz[i] - ksize[i] + pads[i][0] + pads[i][1]
        outs.append((span + strides[i] - 1) // strides[i] + 1 if ceil_mode
                    else span // strides[i] + 1)
    return pads, outs


def pool_ref(x, ptype, ksize, strides, paddings, *, global_pooling=False, exclusive=True,
             adaptive=False, ceil_mode=False, algo="EXPLICIT", channel_last=False):
    """float64 max/avg pooling (NC + spatial dims); returns (out, flat argmax index)."""
    x = x.astype(np.float64)
    if channel_last:
        x = np.moveaxis(x, -1, 1)
    in_sz = x.shape[2:]
    nd = len(in_sz)
    if global_pooling:
        ksize, paddings = list(in_sz), [0] * nd
    if adaptive:
        outs = list(ksize)
    else:
        pads, outs = _geometry(in_sz, ksize, strides, paddings, algo, ceil_mode)
    out = np.zeros((*x.shape[:2], *outs))
    idx = np.zeros((*x.shape[:2], *outs), dtype=np.int64)
    for o in itertools.product(*[range(v) for v in outs]):
        lo, hi, size = [], [], 1
        for i in range(nd):
            if adaptive:
                s = (o[i] * in_sz[i]) // outs[i]
                e = math.ceil((o[i] + 1) * in_sz[i] / outs[i])
            else:
                s = o[i] * strides[i] - pads[i][0]
                # Paddle 2.6.2's CPU functors clip the window end with the BEFORE padding
                # (input + pad_before), not pad_after: with asymmetric paddings and
                # exclusive=False the last windows divide by fewer elements than the OpTest
                # numpy reference does (confirmed by fixture confb_pool2d_avg_asy_pad_inclusive)
                e = min(s + ksize[i], in_sz[i] + pads[i][0])
                size *= e - s
                s, e = max(s, 0), min(e, in_sz[i])
            lo.append(s)
            hi.append(e)
        win = x[(slice(None), slice(None), *[slice(a, b) for a, b in zip(lo, hi, strict=False)])]
        key = (slice(None), slice(None), *o)
        if ptype == "max":
            flat = win.reshape(*win.shape[:2], -1)
            out[key] = flat.max(-1)
            arg = np.unravel_index(flat.argmax(-1), win.shape[2:])
            lin = np.zeros(flat.shape[:2], dtype=np.int64)
            for i in range(nd):
                lin = lin * in_sz[i] + arg[i] + lo[i]
            idx[key] = lin
        else:
            count = win[0, 0].size if (exclusive or adaptive) else size
            out[key] = win.sum(axis=tuple(range(2, 2 + nd))) / count
    if channel_last:
        out = np.moveaxis(out, 1, -1)
    return out, idx


# (name, shape NCHW, pooling_type, ksize, strides, paddings, extra attrs)
POOL2D = [
    ("max", [2, 3, 5, 5], "max", [3, 3], [1, 1], [0, 0], {}),
    ("avg", [2, 3, 5, 5], "avg", [3, 3], [1, 1], [0, 0], {}),
    ("avg_global", [2, 3, 5, 5], "avg", [3, 3], [1, 1], [0, 0], {"global_pooling": True}),
    ("max_global", [2, 3, 5, 5], "max", [3, 3], [1, 1], [0, 0], {"global_pooling": True}),
    ("avg_pad", [2, 3, 7, 7], "avg", [3, 3], [1, 1], [1, 1], {}),
    ("avg_pad_inclusive", [2, 3, 7, 7], "avg", [3, 3], [1, 1], [1, 1], {"exclusive": False}),
    ("max_stride_pad", [2, 3, 7, 7], "max", [3, 3], [2, 2], [1, 1], {}),
    ("avg_ceil", [2, 3, 7, 7], "avg", [3, 3], [2, 2], [0, 0], {"ceil_mode": True}),
    ("max_ceil", [2, 3, 7, 7], "max", [3, 3], [2, 2], [0, 0], {"ceil_mode": True}),
    ("avg_ceil_inclusive", [2, 3, 7, 7], "avg", [3, 3], [2, 2], [1, 1],
     {"ceil_mode": True, "exclusive": False}),
    ("avg_asy_pad", [2, 3, 5, 5], "avg", [3, 3], [1, 1], [1, 0, 1, 2], {}),
    ("avg_asy_pad_inclusive", [2, 3, 5, 5], "avg", [3, 3], [1, 1], [1, 0, 1, 2],
     {"exclusive": False}),
    ("max_asy_pad", [2, 3, 7, 7], "max", [3, 3], [2, 2], [1, 2, 0, 1], {}),
    ("avg_same", [2, 3, 5, 5], "avg", [3, 3], [2, 2], [0, 0], {"padding_algorithm": "SAME"}),
    ("max_same", [2, 3, 7, 7], "max", [2, 2], [2, 2], [1, 1], {"padding_algorithm": "SAME"}),
    ("avg_valid", [2, 3, 7, 7], "avg", [3, 3], [2, 2], [1, 1],
     {"padding_algorithm": "VALID"}),
    ("avg_adaptive", [2, 3, 7, 7], "avg", [3, 3], [1, 1], [0, 0], {"adaptive": True}),
    ("max_adaptive", [2, 3, 7, 7], "max", [3, 3], [1, 1], [0, 0], {"adaptive": True}),
    ("avg_adaptive_uneven", [2, 3, 7, 7], "avg", [4, 5], [1, 1], [0, 0], {"adaptive": True}),
    ("avg_adaptive_to_1", [2, 3, 7, 5], "avg", [1, 1], [1, 1], [0, 0], {"adaptive": True}),
]


def _input(shape, dtype, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(dtype)


TOL = {"float32": (1e-5, 1e-5), "float64": (1e-7, 1e-7)}


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", POOL2D, ids=[c[0] for c in POOL2D])
def test_pool2d(case, dtype, fmt):
    _, shape, ptype, ksize, strides, pads, extra = case
    x = _input(shape, dtype)
    if fmt == "NHWC":
        x = np.ascontiguousarray(np.moveaxis(x, 1, -1))
    attrs = dict(pooling_type=ptype, ksize=ksize, strides=strides, paddings=pads,
                 data_format=fmt, **extra)
    out = run_op("pool2d", {"X": x}, attrs)["Out"][0]
    kw = {k: v for k, v in extra.items() if k != "padding_algorithm"}
    ref, _ = pool_ref(x, ptype, ksize, strides, pads, algo=extra.get("padding_algorithm",
                      "EXPLICIT"), channel_last=fmt == "NHWC", **kw)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_allclose(out, ref, *TOL[dtype])


POOL3D = [
    ("max", [2, 3, 5, 5, 5], "max", [3, 3, 3], [1, 1, 1], [0, 0, 0], {}),
    ("avg_pad", [2, 3, 5, 5, 5], "avg", [3, 3, 3], [1, 1, 1], [1, 1, 1], {}),
    ("avg_pad_inclusive", [2, 3, 5, 5, 5], "avg", [3, 3, 3], [1, 1, 1], [1, 1, 1],
     {"exclusive": False}),
    ("max_global", [2, 3, 4, 5, 3], "max", [3, 3, 3], [1, 1, 1], [0, 0, 0],
     {"global_pooling": True}),
    ("avg_ceil", [2, 3, 6, 6, 6], "avg", [2, 2, 2], [2, 2, 2], [1, 1, 1],
     {"ceil_mode": True}),
    ("avg_asy_pad", [2, 3, 5, 5, 5], "avg", [3, 3, 3], [1, 1, 1], [1, 0, 0, 2, 1, 0], {}),
    ("max_same", [2, 3, 5, 6, 7], "max", [3, 3, 3], [2, 2, 2], [0, 0, 0],
     {"padding_algorithm": "SAME"}),
    ("avg_valid", [2, 3, 5, 6, 7], "avg", [3, 3, 3], [2, 2, 2], [1, 1, 1],
     {"padding_algorithm": "VALID"}),
    ("avg_adaptive", [2, 3, 5, 6, 7], "avg", [2, 3, 4], [1, 1, 1], [0, 0, 0],
     {"adaptive": True}),
    ("max_adaptive", [2, 3, 5, 6, 7], "max", [2, 3, 4], [1, 1, 1], [0, 0, 0],
     {"adaptive": True}),
]


@pytest.mark.parametrize("fmt", ["NCDHW", "NDHWC"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", POOL3D, ids=[c[0] for c in POOL3D])
def test_pool3d(case, dtype, fmt):
    _, shape, ptype, ksize, strides, pads, extra = case
    x = _input(shape, dtype, seed=1)
    if fmt == "NDHWC":
        x = np.ascontiguousarray(np.moveaxis(x, 1, -1))
    attrs = dict(pooling_type=ptype, ksize=ksize, strides=strides, paddings=pads,
                 data_format=fmt, **extra)
    out = run_op("pool3d", {"X": x}, attrs)["Out"][0]
    kw = {k: v for k, v in extra.items() if k != "padding_algorithm"}
    ref, _ = pool_ref(x, ptype, ksize, strides, pads, algo=extra.get("padding_algorithm",
                      "EXPLICIT"), channel_last=fmt == "NDHWC", **kw)
    np.testing.assert_allclose(out, ref, *TOL[dtype])


# max_pool2d_with_index: Paddle's test_pool_max_op.py (Mask = flat index into H*W)
MAXIDX = [
    ("base", [2, 3, 7, 7], [3, 3], [1, 1], [1, 1], {}),
    ("stride", [2, 3, 7, 7], [3, 3], [2, 2], [0, 0], {}),
    ("global", [2, 3, 5, 5], [3, 3], [1, 1], [1, 1], {"global_pooling": True}),
    ("adaptive", [2, 3, 7, 7], [3, 3], [1, 1], [0, 0], {"adaptive": True}),
    ("adaptive_uneven", [2, 3, 7, 5], [4, 3], [1, 1], [0, 0], {"adaptive": True}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", MAXIDX, ids=[c[0] for c in MAXIDX])
def test_max_pool2d_with_index(case, dtype):
    _, shape, ksize, strides, pads, extra = case
    x = _input(shape, dtype, seed=2)
    res = run_op("max_pool2d_with_index", {"X": x},
                 dict(ksize=ksize, strides=strides, paddings=pads, **extra))
    ref, idx = pool_ref(x, "max", ksize, strides, pads, **extra)
    np.testing.assert_allclose(res["Out"][0], ref, *TOL[dtype])
    np.testing.assert_array_equal(res["Mask"][0], idx)
