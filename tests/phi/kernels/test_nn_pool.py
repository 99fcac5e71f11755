"""pool2d: Paddle's recorded cases, small cases worked by hand, and edge cases (strides,
asymmetric and SAME/VALID padding, ceil_mode, exclusive borders, global, adaptive, NHWC)
checked against a transcription of Paddle's CPU loop; Pool2DInferMeta."""

from __future__ import annotations

import numpy as np
import pytest

from phi.common import DataType, IntArray
from phi.core.errors import InvalidArgument
from phi.core.tensor import MetaTensor
from phi.infermeta import pool2d_infer_meta
from phi.infermeta.funcs import MetaConfig
from tests.phi.kernels.test_nn_support import (
    assert_case_output,
    corpus_cases,
    load_case,
    run_kernel,
)

RNG = np.random.default_rng(11)
FLT_MAX = float(np.finfo(np.float32).max)


def paddle_loop(x, ksize, strides, top_left, out_hw, kind, exclusive, adaptive):
    """Pool2dFunctor<CPUContext> of Paddle 2.6, element by element (NCHW)."""
    n, c, h, w = x.shape
    ho, wo = out_hw
    out = np.zeros((n, c, ho, wo), dtype=x.dtype)
    for ph in range(ho):
        for pw in range(wo):
            if adaptive:
                hs, he = (ph * h) // ho, -(-(ph + 1) * h // ho)
                ws, we = (pw * w) // wo, -(-(pw + 1) * w // wo)
                size = (he - hs) * (we - ws)
            else:
                hs = ph * strides[0] - top_left[0]
                ws = pw * strides[1] - top_left[1]
                he = min(hs + ksize[0], h + top_left[0])
                we = min(ws + ksize[1], w + top_left[1])
                size = (he - hs) * (we - ws)
                hs, ws, he, we = max(hs, 0), max(ws, 0), min(he, h), min(we, w)
                if exclusive:
                    size = (he - hs) * (we - ws)
            part = x[:, :, hs:he, ws:we].astype(np.float64)
            if kind == "max":
                out[:, :, ph, pw] = np.max(part, axis=(2, 3), initial=-FLT_MAX)
            else:
                with np.errstate(all="ignore"):
                    out[:, :, ph, pw] = part.sum(axis=(2, 3)) / size
    return out


def pool(x, ksize, strides=(1, 1), paddings=(0, 0), ceil_mode=False, exclusive=True,
         data_format="NCHW", kind="max", global_pooling=False, adaptive=False,
         algorithm="EXPLICIT"):
    return run_kernel("pool2d", [x], [IntArray(list(ksize)), list(strides), list(paddings),
                                      ceil_mode, exclusive, data_format, kind, global_pooling,
                                      adaptive, algorithm])


# -- Paddle's recorded outputs ------------------------------------------------------------------

@pytest.mark.parametrize("name", corpus_cases("pool2d", fallback=("pool2d_avg_inclusive_pad",)))
def test_matches_paddle(name):
    case, arrays, a = load_case(name)
    out = run_kernel("pool2d", [arrays["in.X.0"]],
                     [IntArray(a["ksize"]), a["strides"], a["paddings"], a["ceil_mode"],
                      a["exclusive"], a["data_format"], a["pooling_type"], a["global_pooling"],
                      a["adaptive"], a["padding_algorithm"]])
    assert_case_output(case, out, arrays, "Out")


# -- by hand ----------------------------------------------------------------------------------

def test_2x2_stride_2_by_hand():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    np.testing.assert_array_equal(pool(x, (2, 2), (2, 2)), [[[[5, 7], [13, 15]]]])
    np.testing.assert_array_equal(pool(x, (2, 2), (2, 2), kind="avg"),
                                  [[[[2.5, 4.5], [10.5, 12.5]]]])


def test_exclusive_and_inclusive_average_at_the_borders_by_hand():
    x = np.ones((1, 1, 3, 3), np.float32)
    # k2 s2 p1: rows {0} then {1, 2}; exclusive divides by what is inside the input
    got = pool(x, (2, 2), (2, 2), (1, 1), kind="avg")
    np.testing.assert_array_equal(got, np.ones((1, 1, 2, 2)))
    # inclusive divides by the window including the padding: 4 everywhere
    got = pool(x, (2, 2), (2, 2), (1, 1), kind="avg", exclusive=False)
    np.testing.assert_array_equal(got, [[[[0.25, 0.5], [0.5, 1.0]]]])


def test_ceil_mode_by_hand():
    x = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
    assert pool(x, (2, 2), (2, 2)).shape == (1, 1, 2, 2)
    got = pool(x, (2, 2), (2, 2), ceil_mode=True)
    np.testing.assert_array_equal(got, [[[[6, 8, 9], [16, 18, 19], [21, 23, 24]]]])
    # the overhanging last window holds x[4, 4] alone; Paddle 2.6 counts only up to
    # size + leading padding, so inclusive averaging also divides by 1 there
    for exclusive in (True, False):
        avg = pool(x, (2, 2), (2, 2), ceil_mode=True, kind="avg", exclusive=exclusive)
        assert avg[0, 0, 2, 2] == 24 and avg[0, 0, 0, 2] == (4 + 9) / 2


def test_max_floor_is_minus_flt_max():
    x = np.full((1, 1, 2, 2), -np.inf, np.float64)
    np.testing.assert_array_equal(pool(x, (2, 2)), np.full((1, 1, 1, 1), -FLT_MAX))
    # a window entirely in the padding (padding >= kernel) also gives -FLT_MAX
    x = np.zeros((1, 1, 2, 2), np.float32)
    out = pool(x, (1, 1), (1, 1), (1, 1))
    assert out[0, 0, 0, 0] == -FLT_MAX and out[0, 0, 1, 1] == 0


# -- edge cases against the loop ----------------------------------------------------------------

EDGE = {
    "k3s1": {"ksize": (3, 3)},
    "k3s2p1": {"ksize": (3, 3), "strides": (2, 2), "paddings": (1, 1)},
    "k2s3": {"ksize": (2, 2), "strides": (3, 3)},
    "rect": {"ksize": (3, 2), "strides": (1, 2), "paddings": (1, 0)},
    "asym_pad": {"ksize": (3, 3), "strides": (2, 2), "paddings": (0, 2, 1, 0)},
    "asym_pad_ceil": {"ksize": (3, 3), "strides": (2, 2), "paddings": (1, 0, 2, 1),
                      "ceil_mode": True},
    "ceil": {"ksize": (3, 3), "strides": (2, 2), "ceil_mode": True},
    "ceil_pad": {"ksize": (2, 2), "strides": (2, 2), "paddings": (1, 1), "ceil_mode": True},
    "same": {"ksize": (3, 2), "strides": (2, 3), "paddings": (9, 9), "algorithm": "SAME"},
    "valid": {"ksize": (3, 3), "strides": (2, 2), "paddings": (5, 5), "algorithm": "VALID"},
}


def _lead_and_out(x_hw, kw):
    """(leading paddings, output size) as Paddle's UpdatePadding and PoolOutputSize give."""
    k, s = kw["ksize"], kw.get("strides", (1, 1))
    p = list(kw.get("paddings", (0, 0)))
    p = p if len(p) == 4 else [p[0], p[0], p[1], p[1]]
    alg = kw.get("algorithm", "EXPLICIT")
    if alg == "VALID":
        p = [0, 0, 0, 0]
    if alg == "SAME":
        p = []
        for size, st, kk in zip(x_hw, s, k, strict=False):
            total = max(0, (-(-size // st) - 1) * st + kk - size)
            p += [total // 2, total - total // 2]
    extra = [st - 1 if kw.get("ceil_mode") else 0 for st in s]
    out = [(x_hw[i] - k[i] + p[2 * i] + p[2 * i + 1] + extra[i]) // s[i] + 1 for i in range(2)]
    return (p[0], p[2]), out


@pytest.mark.parametrize("kind, exclusive", [("max", True), ("avg", True), ("avg", False)])
@pytest.mark.parametrize("name", sorted(EDGE))
def test_edge_cases_against_paddles_loop(name, kind, exclusive):
    kw = EDGE[name]
    x = RNG.standard_normal((2, 3, 7, 8)).astype(np.float32)
    lead, out_hw = _lead_and_out(x.shape[2:], kw)
    want = paddle_loop(x, kw["ksize"], kw.get("strides", (1, 1)), lead, out_hw, kind, exclusive,
                       False)
    got = pool(x, kind=kind, exclusive=exclusive, **kw)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("out_size", [(1, 1), (2, 2), (3, 3), (4, 3), (7, 8), (9, 5)])
def test_adaptive_against_paddles_loop(out_size, kind):
    x = RNG.standard_normal((2, 3, 7, 8)).astype(np.float64)
    want = paddle_loop(x, None, None, None, out_size, kind, True, True)
    got = pool(x, out_size, kind=kind, adaptive=True, paddings=(3, 3))  # paddings ignored
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_global_pooling(kind):
    x = RNG.standard_normal((2, 3, 5, 4)).astype(np.float32)
    got = pool(x, (2, 2), (2, 2), (1, 1), kind=kind, global_pooling=True, ceil_mode=True)
    want = x.max(axis=(2, 3), keepdims=True) if kind == "max" else x.mean(axis=(2, 3),
                                                                          keepdims=True)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_large_window_path_equals_taps():
    x = RNG.standard_normal((1, 2, 12, 12)).astype(np.float64)
    for kind in ("max", "avg"):
        big = pool(x, (9, 9), (1, 1), kind=kind)  # 81 > 64 taps: reduced over a window view
        want = paddle_loop(x, (9, 9), (1, 1), (0, 0), (4, 4), kind, True, False)
        np.testing.assert_allclose(big, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kw", [{"ksize": (3, 3), "strides": (2, 2), "paddings": (1, 1)},
                                {"ksize": (2, 3), "adaptive": True},
                                {"ksize": (3, 3), "paddings": (0, 1, 1, 2), "ceil_mode": True}])
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_nhwc_is_nchw_transposed(kw, kind):
    x = RNG.standard_normal((2, 3, 7, 6)).astype(np.float32)
    nchw = pool(x, kind=kind, **kw)
    nhwc = pool(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), kind=kind, data_format="NHWC",
                **kw)
    assert nhwc.flags.c_contiguous
    np.testing.assert_array_equal(nhwc, nchw.transpose(0, 2, 3, 1))


# -- InferMeta ----------------------------------------------------------------------------------

def _infer(x_dims, ksize, *, config=None, **kw):
    args = {"strides": [1, 1], "paddings": [0, 0], "ceil_mode": False, "exclusive": True,
            "data_format": "NCHW", "pooling_type": "max", "global_pooling": False,
            "adaptive": False, "padding_algorithm": "EXPLICIT"}
    args.update(kw)
    out = MetaTensor()
    pool2d_infer_meta(MetaTensor(x_dims, DataType.FLOAT32), ksize, *args.values(), out,
                      config=config)
    return out


def test_infer_meta_shapes():
    assert _infer((2, 3, 7, 8), IntArray([3, 3]), strides=[2, 2]).dims == (2, 3, 3, 3)
    assert _infer((2, 7, 8, 3), IntArray([3, 3]), data_format="NHWC").dims == (2, 5, 6, 3)
    assert _infer((2, 3, 7, 8), IntArray([4, 5]), adaptive=True).dims == (2, 3, 4, 5)
    assert _infer((2, 3, 7, 8), IntArray([2, 2]), global_pooling=True).dims == (2, 3, 1, 1)
    compile_time = MetaConfig(is_runtime=False)
    assert _infer((-1, 3, -1, 8), IntArray([3, 3]), config=compile_time).dims == (-1, 3, -1, 6)
    from_tensor = IntArray([3, 3], from_tensor=True)
    assert _infer((2, 3, 7, 8), from_tensor, config=compile_time).dims == (2, 3, -1, -1)


@pytest.mark.parametrize("x_dims, ksize, kw, match", [
    ((2, 3, 7), [3, 3], {}, "4-D or 5-D"),
    ((2, 3, 7, 8), [3], {}, "kernel_size"),
    ((2, 3, 7, 8), [3, 3], {"strides": [1]}, "strides"),
    ((2, 3, 2, 2), [3, 3], {}, "greater than 0"),
    ((2, 3, 7, 8), [3, 3], {"pooling_type": "min"}, "pooling_type"),
    ((2, 3, 7, 8), [3, 3], {"paddings": [1, 1, 1]}, "padding"),
    ((2, 3, 7, 8), [0, 3], {"adaptive": True}, "adaptive output size"),
])
def test_infer_meta_errors(x_dims, ksize, kw, match):
    with pytest.raises(InvalidArgument, match=match):
        _infer(x_dims, IntArray(ksize), **kw)
