"""The fast paths of convolution and pooling against independent truth: Winograd
F(2x2, 3x3) and the compiled depthwise loop (FLAGS_conv_winograd, FLAGS_kernel_numba) against
a float64 convolution summed tap by tap, and against the numpy path they replace; scratch
buffers (FLAGS_kernel_scratch) bitwise equal to fresh arrays and private to each thread; the
compiled max pool bitwise equal to the numpy path, NaN and -inf included.  Every case runs
with the switches on and off."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from phi.common.int_array import IntArray
from phi.flags import get_flags, set_flags
from phi.kernels import conv as conv_kernels
from phi.kernels import pool as pooling
from phi.kernels.conv import conv_geometry
from phi.kernels.funcs import jit

ROOT = Path(__file__).resolve().parents[3]

CTX = SimpleNamespace(xp=np)
RNG = np.random.default_rng(14)
SWITCHES = conv_kernels.FAST_PATH_FLAGS
FAST = dict.fromkeys(SWITCHES, True)
SLOW = dict.fromkeys(SWITCHES, False)

#: whether this process has the compiled loops (asked once, with the switches at their defaults:
#: a test that just ran its slow case has FLAGS_kernel_numba off, and jit.kernels() is None then)
HAVE_LOOPS = jit.kernels() is not None
needs_numba = pytest.mark.skipif(not HAVE_LOOPS, reason="numba is not installed")


@pytest.fixture(autouse=True)
def _restore_switches():
    saved = get_flags(list(SWITCHES))
    yield
    set_flags(saved)


# (..., c0, c1): split over threads by jit.split
SPLIT_LOOPS = ("depthwise", "depthwise_3x3_small", "winograd_input", "winograd_output")


@pytest.fixture
def calls(monkeypatch):
    """Counts of the compiled loops' calls (by name; a loop split over threads by channels
    counts once, by its part from channel 0)."""
    counts: dict[str, int] = {}
    loops = jit.kernels()
    if loops is None:
        return counts
    for name in (*SPLIT_LOOPS, "winograd_weight", "max_pool2d", "im2col"):
        fn = getattr(loops, name)

        def counted(*args, _fn=fn, _name=name):
            if _name not in SPLIT_LOOPS or args[-2] == 0:
                counts[_name] = counts.get(_name, 0) + 1
            return _fn(*args)

        monkeypatch.setattr(loops, name, counted)
    return counts


def reference_conv(x, w, strides, paddings, algorithm, dilations, groups, data_format):
    """The convolution in float64, one multiply-add per filter tap (no im2col, no GEMM)."""
    x = np.asarray(x, np.float64)
    if data_format == "NHWC":
        x = x.transpose(0, 3, 1, 2)
    pads, dils, (ho, wo) = conv_geometry(x.shape[2:], w.shape[2:], strides, paddings,
                                         algorithm, dilations)
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    n, c = x.shape[:2]
    o, cg, kh, kw = w.shape
    og = o // groups
    out = np.zeros((n, o, ho, wo))
    for g in range(groups):
        xs = xp[:, g * cg:(g + 1) * cg]
        ws = np.asarray(w[g * og:(g + 1) * og], np.float64)
        for i in range(kh):
            for j in range(kw):
                r0, c0 = i * dils[0], j * dils[1]
                patch = xs[:, :, r0:r0 + (ho - 1) * strides[0] + 1:strides[0],
                           c0:c0 + (wo - 1) * strides[1] + 1:strides[1]]
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, ws[:, :, i, j])
    return out.transpose(0, 2, 3, 1) if data_format == "NHWC" else out


def _run(kernel, x, w, strides, paddings, algorithm, dilations, groups, data_format, flags):
    set_flags(flags)
    if kernel == "depthwise_conv2d":
        return conv_kernels.depthwise_conv2d(CTX, x, w, strides, paddings, algorithm, groups,
                                             dilations, data_format)
    return conv_kernels.conv2d(CTX, x, w, strides, paddings, algorithm, dilations, groups,
                               data_format)


def _assert_near(got, want, rtol=1e-5):
    assert got.shape == want.shape
    scale = max(float(np.abs(want).max(initial=0)), 1e-30)
    assert float(np.abs(got - want).max(initial=0)) <= rtol * scale


WINOGRAD_CASES = [
    # (N, C, O, H, W, paddings, algorithm, data_format)
    (1, 3, 4, 8, 8, [1, 1], "EXPLICIT", "NCHW"),
    (2, 5, 3, 9, 7, [1, 1], "EXPLICIT", "NCHW"),        # odd sizes, batch 2
    (1, 4, 6, 11, 13, [0, 0], "EXPLICIT", "NCHW"),      # no padding, odd output
    (1, 2, 3, 10, 9, [0, 2, 1, 0], "EXPLICIT", "NCHW"),  # asymmetric
    (1, 3, 2, 7, 6, [2, 2], "EXPLICIT", "NCHW"),        # padding wider than the tile edge
    (1, 4, 4, 9, 10, [0, 0], "SAME", "NCHW"),
    (1, 4, 4, 9, 10, [0, 0], "VALID", "NCHW"),
    (2, 3, 5, 8, 9, [1, 1], "EXPLICIT", "NHWC"),
    (1, 2, 2, 3, 3, [0, 0], "EXPLICIT", "NCHW"),        # one output
    (1, 2, 2, 2, 2, [1, 1], "EXPLICIT", "NCHW"),        # map smaller than the window
    (1, 1, 1, 1, 5, [1, 1], "EXPLICIT", "NCHW"),
]


def _fast_and_plain_against_taps(kernel: str, args: tuple, dtype):
    """The kernel with the switches on and off, each within the dtype's tolerance of the
    tap-by-tap float64 reference and of each other; (reference, fast result)."""
    want = reference_conv(*args)
    fast = _run(kernel, *args, FAST)
    slow = _run(kernel, *args, SLOW)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    _assert_near(fast, want, rtol)
    _assert_near(slow, want, rtol)
    _assert_near(fast, slow, rtol)
    assert fast.dtype == dtype and fast.flags.c_contiguous
    return want, fast


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", WINOGRAD_CASES)
def test_winograd_against_taps_and_im2col(case, dtype, calls):
    n, c, o, h, w_, paddings, algorithm, fmt = case
    shape = (n, h, w_, c) if fmt == "NHWC" else (n, c, h, w_)
    x = RNG.standard_normal(shape).astype(dtype)
    w = RNG.standard_normal((o, c, 3, 3)).astype(dtype)
    args = (x, w, [1, 1], paddings, algorithm, [1, 1], 1, fmt)
    want, fast = _fast_and_plain_against_taps("conv2d", args, dtype)
    if HAVE_LOOPS and 0 not in want.shape:
        if c == 1:  # one channel in one group is depthwise: the depthwise loops take it
            assert calls.get("winograd_input") is None
            assert calls.get("depthwise_3x3_small", 0) + calls.get("depthwise", 0) == 1
        else:
            assert calls.get("winograd_input") == 1 and calls.get("winograd_output") == 1


@needs_numba
@pytest.mark.parametrize("kw", [dict(strides=[2, 2]), dict(dilations=[2, 2]),
                                dict(groups=2), dict(k=5), dict(k=1)])
def test_winograd_only_for_3x3_stride1_undilated_ungrouped(kw, calls):
    k = kw.get("k", 3)
    groups = kw.get("groups", 1)
    x = RNG.standard_normal((1, 4, 12, 12)).astype(np.float32)
    w = RNG.standard_normal((4, 4 // groups, k, k)).astype(np.float32)
    args = (x, w, kw.get("strides", [1, 1]), [1, 1], "EXPLICIT", kw.get("dilations", [1, 1]),
            groups, "NCHW")
    got = _run("conv2d", *args, FAST)
    _assert_near(got, reference_conv(*args))
    assert "winograd_input" not in calls


@needs_numba
def test_winograd_kept_off_where_it_does_not_pay(calls):
    # 7x7 map (16 tiles) of 512 channels: im2col (module doc, _winograd_pays)
    x = RNG.standard_normal((1, 512, 7, 7)).astype(np.float32)
    w = RNG.standard_normal((8, 512, 3, 3)).astype(np.float32)
    _run("conv2d", x, w, [1, 1], [1, 1], "EXPLICIT", [1, 1], 1, "NCHW", FAST)
    assert "winograd_input" not in calls
    x = RNG.standard_normal((1, 64, 28, 28)).astype(np.float32)
    w = RNG.standard_normal((64, 64, 3, 3)).astype(np.float32)
    _run("conv2d", x, w, [1, 1], [1, 1], "EXPLICIT", [1, 1], 1, "NCHW", FAST)
    assert calls["winograd_input"] == 1


def test_filter_edited_in_place_takes_effect():
    # nothing derived from the filter is cached: an edit between calls is seen by the next
    x = RNG.standard_normal((1, 4, 16, 16)).astype(np.float32)
    w = RNG.standard_normal((4, 4, 3, 3)).astype(np.float32)
    args = (x, w, [1, 1], [1, 1], "EXPLICIT", [1, 1], 1, "NCHW")
    _run("conv2d", *args, FAST)
    w[...] *= -2.0
    w[0, 0, 1, 1] = 7.0
    _assert_near(_run("conv2d", *args, FAST), reference_conv(*args))


DEPTHWISE_CASES = [
    # (N, C, multiplier, H, W, k, strides, paddings, algorithm, dilations, data_format)
    (1, 3, 1, 8, 8, 3, [1, 1], [1, 1], "EXPLICIT", [1, 1], "NCHW"),
    (2, 4, 1, 9, 7, 3, [2, 2], [1, 1], "EXPLICIT", [1, 1], "NCHW"),
    (1, 3, 2, 10, 11, 3, [1, 1], [1, 1], "EXPLICIT", [1, 1], "NCHW"),    # multiplier 2
    (1, 4, 1, 12, 12, 3, [1, 1], [2, 2], "EXPLICIT", [2, 2], "NCHW"),    # dilated
    (1, 2, 1, 9, 10, 5, [2, 1], [0, 3, 2, 1], "EXPLICIT", [1, 1], "NCHW"),
    (1, 3, 1, 11, 9, 3, [3, 2], [0, 0], "SAME", [1, 1], "NCHW"),
    (1, 3, 1, 11, 9, 3, [2, 2], [0, 0], "VALID", [1, 1], "NCHW"),
    (2, 5, 1, 7, 8, 3, [1, 1], [1, 1], "EXPLICIT", [1, 1], "NHWC"),
    (1, 2, 1, 2, 2, 3, [1, 1], [0, 0], "EXPLICIT", [1, 1], "NCHW"),      # window overhangs
    (1, 2, 1, 1, 1, 3, [1, 1], [1, 1], "EXPLICIT", [1, 1], "NCHW"),
    (1, 2, 1, 6, 6, 3, [1, 1], [4, 4], "EXPLICIT", [1, 1], "NCHW"),      # padding-only rows
    # outputs >= 24 wide: the 3x3 loop's by-rows branch (stride 1, and stride 2 with phases)
    (1, 3, 1, 9, 30, 3, [1, 1], [1, 1], "EXPLICIT", [1, 1], "NCHW"),
    (1, 3, 2, 7, 52, 3, [2, 2], [1, 1], "EXPLICIT", [1, 1], "NCHW"),
    # <= 16 output positions of a 3x3 filter: depthwise_3x3_small (vectorised over channels)
    (1, 5, 1, 2, 2, 3, [1, 1], [1, 1], "EXPLICIT", [1, 1], "NCHW"),
    (2, 6, 2, 4, 4, 3, [2, 2], [1, 1], "EXPLICIT", [1, 1], "NCHW"),      # multiplier, batch
    (1, 4, 1, 3, 2, 3, [1, 1], [2, 2], "EXPLICIT", [2, 2], "NCHW"),      # dilated
    (1, 3, 1, 3, 3, 3, [2, 1], [0, 2, 1, 0], "EXPLICIT", [1, 1], "NCHW"),  # uneven pads
    (2, 5, 1, 2, 3, 3, [1, 1], [1, 1], "EXPLICIT", [1, 1], "NHWC"),
    (1, 3, 1, 4, 4, 3, [1, 1], [1, 1], "EXPLICIT", [1, 1], "NCHW"),      # 16 positions: small
    (1, 3, 1, 1, 17, 3, [1, 1], [1, 1], "EXPLICIT", [1, 1], "NCHW"),     # 17: per channel
]


@pytest.mark.parametrize("kernel", ["depthwise_conv2d", "conv2d"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", DEPTHWISE_CASES)
def test_depthwise_against_taps_and_numpy_path(case, dtype, kernel, calls):
    n, c, mult, h, w_, k, strides, paddings, algorithm, dils, fmt = case
    shape = (n, h, w_, c) if fmt == "NHWC" else (n, c, h, w_)
    x = RNG.standard_normal(shape).astype(dtype)
    w = RNG.standard_normal((c * mult, 1, k, k)).astype(dtype)
    args = (x, w, strides, paddings, algorithm, dils, c, fmt)
    want, fast = _fast_and_plain_against_taps(kernel, args, dtype)
    if HAVE_LOOPS and 0 not in want.shape:
        small = (k == 3 and math.prod(want.shape[1:3] if fmt == "NHWC" else want.shape[2:])
                 <= conv_kernels._DEPTHWISE_SMALL)
        assert calls.get("depthwise_3x3_small" if small else "depthwise") == 1
        assert calls.get("depthwise" if small else "depthwise_3x3_small") is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_depthwise_non_square_3_row_filter_takes_the_per_channel_loop(dtype, calls):
    # a 3x5 filter over few positions: the small loop sums 3x3 taps only, so it must not
    # take it (the per-channel loop does, within the taps' tolerance)
    x = RNG.standard_normal((1, 4, 3, 3)).astype(dtype)
    w = RNG.standard_normal((4, 1, 3, 5)).astype(dtype)
    args = (x, w, [1, 1], [1, 2], "EXPLICIT", [1, 1], 4, "NCHW")
    _fast_and_plain_against_taps("depthwise_conv2d", args, dtype)
    if HAVE_LOOPS:
        assert calls.get("depthwise") == 1 and calls.get("depthwise_3x3_small") is None


@needs_numba
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("geometry", [
    # (C, m, H, W, pads top / left, strides, dilations)
    (37, 1, 2, 2, (1, 1), (1, 1), (1, 1)), (9, 3, 4, 4, (1, 1), (2, 2), (1, 1)),
    (8, 1, 3, 2, (2, 2), (1, 1), (2, 2)), (6, 2, 1, 1, (1, 1), (1, 1), (1, 1)),
    (5, 1, 5, 5, (0, 1), (2, 3), (1, 1)),
])
def test_depthwise_3x3_small_is_depthwise_bit_for_bit(dtype, geometry):
    # the same sums in the same order: NaN, inf, -0.0 and zero products alike, channel ranges
    c, m, h, w, (pt, pl), (sh, sw), (dh, dw) = geometry
    ho = (h + 2 * pt - 2 * dh - 1) // sh + 1
    wo = (w + 2 * pl - 2 * dw - 1) // sw + 1
    x = RNG.standard_normal((2, c, h, w)).astype(dtype)
    f = RNG.standard_normal((c * m, 3, 3)).astype(dtype)
    x.reshape(-1)[:4] = [np.nan, np.inf, -0.0, 0.0]
    f.reshape(-1)[-3:] = [np.inf, -0.0, 1e30]
    loops = jit.kernels()
    for c0, c1 in ((0, c), (1, max(1, c - 2))):
        want = np.full((2, c * m, ho, wo), 7, dtype)
        got = want.copy()
        loops.depthwise(x, f, want, pt, pl, sh, sw, dh, dw, c0, c1)
        loops.depthwise_3x3_small(x, f, got, pt, pl, sh, sw, dh, dw, c0, c1)
        assert got.tobytes() == want.tobytes()


def test_numba_absent_means_numpy_path(monkeypatch):
    # without numba and without an ahead-of-time build (or with the flag off) every kernel
    # runs its numpy path
    monkeypatch.setattr(jit, "_STATE", {})
    monkeypatch.setattr(jit, "_JIT_STATE", [None])
    monkeypatch.setattr(jit.aot, "load", lambda fallback: None)
    assert jit.kernels() is None
    x = RNG.standard_normal((1, 4, 10, 10)).astype(np.float32)
    w = RNG.standard_normal((4, 1, 3, 3)).astype(np.float32)
    args = (x, w, [1, 1], [1, 1], "EXPLICIT", [1, 1], 4, "NCHW")
    _assert_near(_run("depthwise_conv2d", *args, FAST), reference_conv(*args))
    set_flags({"FLAGS_kernel_numba": False})
    monkeypatch.setattr(jit, "_STATE", {})
    monkeypatch.setattr(jit, "_JIT_STATE", [])
    assert jit.kernels() is None


@pytest.mark.parametrize("case", [((1, 3, 9, 9), 3, 1, [1, 1]), ((2, 8, 12, 10), 3, 2, [0, 0]),
                                  ((1, 4, 7, 7), 5, 1, [2, 1, 0, 2])])
def test_scratch_bitwise_equal_to_fresh_arrays(case):
    shape, k, s, paddings = case
    x = RNG.standard_normal(shape).astype(np.float32)
    w = RNG.standard_normal((5, shape[1], k, k)).astype(np.float32)
    args = (x, w, [s, s], paddings, "EXPLICIT", [1, 1], 1, "NCHW")
    off = {**SLOW, "FLAGS_kernel_scratch": False}
    on = {**SLOW, "FLAGS_kernel_scratch": True}
    first = _run("conv2d", *args, on)
    np.testing.assert_array_equal(first, _run("conv2d", *args, off))
    # a result is never a view of the scratch buffer: a later call leaves it alone
    kept = first.copy()
    _run("conv2d", RNG.standard_normal(shape).astype(np.float32), w, [s, s], paddings,
         "EXPLICIT", [1, 1], 1, "NCHW", on)
    np.testing.assert_array_equal(first, kept)


def test_threads_never_share_scratch():
    # many threads, each its own shapes, concurrently: each result equals the serial one
    set_flags(FAST)
    jobs = []
    for t in range(6):
        c = 3 + t
        x = RNG.standard_normal((1, c, 20 + t, 18 + 2 * t)).astype(np.float32)
        w = RNG.standard_normal((4, c, 3, 3)).astype(np.float32)
        wd = RNG.standard_normal((c, 1, 3, 3)).astype(np.float32)
        jobs.append((x, w, wd))
    def three(x, w, wd):
        return (conv_kernels.conv2d(CTX, x, w, [1, 1], [1, 1], "EXPLICIT", [1, 1], 1, "NCHW"),
                conv_kernels.conv2d(CTX, x, w, [2, 2], [1, 1], "EXPLICIT", [1, 1], 1, "NCHW"),
                conv_kernels.depthwise_conv2d(CTX, x, wd, [1, 1], [1, 1], "EXPLICIT",
                                              x.shape[1], [1, 1], "NCHW"))

    assert not _concurrent_mismatches(three, jobs, 15)


def _concurrent_mismatches(fn, jobs, rounds: int) -> list[int]:
    """fn(*job) for every job on its own thread (started together), ``rounds`` times each: the
    jobs whose results ever differ from a serial call's."""
    want = [fn(*job) for job in jobs]
    errors = []
    barrier = threading.Barrier(len(jobs))

    def worker(i):
        barrier.wait()
        for _ in range(rounds):
            for g, e in zip(fn(*jobs[i]), want[i], strict=True):
                if not np.array_equal(g, e):
                    errors.append(i)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


POOL_CASES = [
    # (shape, ksize, strides, paddings, ceil_mode, algorithm, data_format)
    ((1, 3, 9, 9), [3, 3], [2, 2], [1, 1], False, "EXPLICIT", "NCHW"),
    ((2, 4, 8, 11), [2, 2], [2, 2], [0, 0], True, "EXPLICIT", "NCHW"),
    ((1, 2, 7, 6), [3, 2], [1, 3], [1, 0, 0, 1], False, "EXPLICIT", "NCHW"),
    ((1, 3, 10, 9), [3, 3], [2, 2], [0, 0], False, "SAME", "NCHW"),
    ((1, 3, 10, 9), [3, 3], [3, 3], [0, 0], True, "VALID", "NCHW"),
    ((2, 6, 7, 5), [3, 3], [2, 2], [1, 1], False, "EXPLICIT", "NHWC"),
    ((1, 2, 2, 2), [3, 3], [2, 2], [1, 1], True, "EXPLICIT", "NCHW"),  # windows past the input
    ((2, 3, 8, 7), [3, 3], [1, 1], [1, 1], False, "EXPLICIT", "NCHW"),  # 3x3 stride 1
    ((1, 2, 11, 10), [3, 3], [3, 2], [0, 2, 1, 0], True, "EXPLICIT", "NCHW"),
    ((1, 2, 9, 12), [5, 3], [2, 3], [2, 1], False, "EXPLICIT", "NCHW"),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", POOL_CASES)
def test_max_pool_compiled_bitwise_equal(case, dtype, calls):
    shape, ksize, strides, paddings, ceil_mode, algorithm, fmt = case
    x = RNG.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    flat[::7] = -np.inf  # windows of -inf only give -FLT_MAX
    flat[5] = np.nan  # a NaN wins its windows
    flat[-3] = np.inf
    if fmt == "NHWC":
        x = x.transpose(0, 2, 3, 1).copy()
    results = []
    for on in (True, False):
        set_flags({"FLAGS_kernel_numba": on})
        results.append(pooling.pool_compute(CTX, x, ksize, strides, paddings, ceil_mode, True,
                                            fmt, "max", False, False, algorithm))
    np.testing.assert_array_equal(results[0], results[1])
    assert results[0].dtype == dtype
    if HAVE_LOOPS:
        assert calls.get("max_pool2d") == 1


@pytest.mark.parametrize("kernel", ["conv2d", "depthwise_conv2d"])
@pytest.mark.parametrize("where", ["input", "filter"])
def test_non_finite_values_as_the_numpy_path(kernel, where, calls):
    # inf and NaN give the numpy path's non-finite pattern (Winograd steps aside for them)
    c = 4
    x = RNG.standard_normal((2, c, 10, 10)).astype(np.float32)
    w = RNG.standard_normal((c, 1 if kernel == "depthwise_conv2d" else c, 3, 3)).astype(
        np.float32)
    if where == "input":
        x[0, 1, 3, 4], x[0, 2, 7, 7], x[1, 0, 0, 0] = np.inf, -np.inf, np.nan
    else:
        w[1, 0, 1, 1], w[2, 0, 0, 0] = np.inf, np.nan
    groups = c if kernel == "depthwise_conv2d" else 1
    args = (x, w, [1, 1], [1, 1], "EXPLICIT", [1, 1], groups, "NCHW")
    fast = _run(kernel, *args, FAST)
    slow = _run(kernel, *args, SLOW)
    np.testing.assert_array_equal(np.isnan(fast), np.isnan(slow))
    np.testing.assert_array_equal(np.isinf(fast), np.isinf(slow))
    ok = np.isfinite(slow)
    _assert_near(fast[ok], slow[ok])
    np.testing.assert_array_equal(fast[np.isinf(fast)], slow[np.isinf(slow)])
    assert "winograd_input" not in calls


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
@pytest.mark.parametrize("n", [1, 3])
def test_1x1_gemm_bitwise_equal_to_im2col(fmt, n):
    x = RNG.standard_normal((n, 7, 5, 6) if fmt == "NCHW" else (n, 5, 6, 7)).astype(np.float32)
    w = RNG.standard_normal((9, 7, 1, 1)).astype(np.float32)
    args = (x, w, [1, 1], [0, 0], "EXPLICIT", [1, 1], 1, fmt)
    on = _run("conv2d", *args, {**SLOW, "FLAGS_conv_1x1_gemm": True})
    off = _run("conv2d", *args, {**SLOW, "FLAGS_conv_1x1_gemm": False})
    np.testing.assert_array_equal(on, off)
    _assert_near(on, reference_conv(*args))
    assert on.flags.c_contiguous
    # conv3d's 1x1x1 takes the same GEMM
    x3 = RNG.standard_normal((n, 4, 3, 5, 2)).astype(np.float32)
    w3 = RNG.standard_normal((6, 4, 1, 1, 1)).astype(np.float32)
    got = [(set_flags({"FLAGS_conv_1x1_gemm": flag}),
            conv_kernels.conv3d(CTX, x3, w3, [1, 1, 1], [0, 0, 0], "EXPLICIT", 1, [1, 1, 1],
                                "NCDHW"))[1] for flag in (True, False)]
    np.testing.assert_array_equal(*got)


# ---- FLAGS_kernel_threads: the compiled loops split by channels over helper threads ---------

THREAD_CASES = [
    # (kernel, x shape, filter shape, strides, paddings, groups)
    ("depthwise_conv2d", (2, 7, 12, 11), (7, 1, 3, 3), [1, 1], [1, 1], 7),
    ("depthwise_conv2d", (1, 5, 13, 9), (10, 1, 3, 3), [2, 2], [1, 1], 5),  # multiplier 2
    ("depthwise_conv2d", (1, 6, 9, 9), (6, 1, 5, 5), [1, 2], [2, 1], 6),
    ("depthwise_conv2d", (2, 9, 4, 4), (18, 1, 3, 3), [2, 2], [1, 1], 9),  # 2x2: small loop
    ("conv2d", (1, 5, 14, 12), (7, 5, 3, 3), [1, 1], [1, 1], 1),  # Winograd
    ("conv2d", (2, 3, 9, 11), (4, 3, 3, 3), [1, 1], [0, 1], 1),
]


@needs_numba
@pytest.mark.parametrize("case", THREAD_CASES)
def test_threads_split_bitwise_equal(case, monkeypatch, calls):
    # every part writes only its own channels: any split gives the one-thread bits
    kernel, xs, ws, strides, paddings, groups = case
    monkeypatch.setattr(jit, "MIN_SPLIT_WORK", 0)  # split however small
    x = RNG.standard_normal(xs).astype(np.float32)
    w = RNG.standard_normal(ws).astype(np.float32)
    args = (x, w, strides, paddings, "EXPLICIT", [1, 1], groups, "NCHW")
    saved = get_flags([jit.THREADS_FLAG])
    try:
        got = []
        for threads in (1, 2, 3, 64):
            set_flags({jit.THREADS_FLAG: threads})
            got.append(_run(kernel, *args, FAST))
    finally:
        set_flags(saved)
    for g in got[1:]:
        np.testing.assert_array_equal(g, got[0])
    _assert_near(got[0], reference_conv(*args))
    loop = "depthwise" if groups > 1 else "winograd_output"
    if groups > 1 and math.prod(got[0].shape[2:]) <= conv_kernels._DEPTHWISE_SMALL:
        loop = "depthwise_3x3_small"
    if loop != "winograd_output" or (strides == [1, 1] and paddings == [1, 1]):
        assert calls.get(loop) == 4  # each run counted once, whatever its parts


@needs_numba
def test_threads_split_under_concurrent_callers(monkeypatch):
    # one caller holds the helpers at a time; the others run whole on their own thread: the
    # results equal the serial ones whichever way each call went
    monkeypatch.setattr(jit, "MIN_SPLIT_WORK", 0)
    saved = get_flags([jit.THREADS_FLAG])
    set_flags({**FAST, jit.THREADS_FLAG: 2})
    try:
        jobs = []
        for t in range(6):
            c = 4 + t
            x = RNG.standard_normal((1, c, 16 + t, 14 + t)).astype(np.float32)
            jobs.append((x, RNG.standard_normal((c, 1, 3, 3)).astype(np.float32),
                         RNG.standard_normal((5, c, 3, 3)).astype(np.float32)))

        def both(x, wd, w):
            return (conv_kernels.depthwise_conv2d(CTX, x, wd, [1, 1], [1, 1], "EXPLICIT",
                                                  x.shape[1], [1, 1], "NCHW"),
                    conv_kernels.conv2d(CTX, x, w, [1, 1], [1, 1], "EXPLICIT", [1, 1], 1,
                                        "NCHW"))

        assert not _concurrent_mismatches(both, jobs, 20)
    finally:
        set_flags(saved)


def test_split_runs_whole_when_off_small_or_busy(monkeypatch):
    parts = []

    def loop(tag, c0, c1):
        parts.append((tag, c0, c1))

    saved = get_flags([jit.THREADS_FLAG])
    try:
        set_flags({jit.THREADS_FLAG: 1})
        jit.split(loop, 10, 10**9, "off")
        set_flags({jit.THREADS_FLAG: 2})
        jit.split(loop, 10, 1, "small")
        jit.split(loop, 1, 10**9, "one channel")
        with jit._HELPERS_BUSY:  # another caller holds the helpers
            jit.split(loop, 10, 10**9, "busy")
        jit.split(loop, 10, 10**9, "split")
    finally:
        set_flags(saved)
    assert parts[:4] == [("off", 0, 10), ("small", 0, 10), ("one channel", 0, 1),
                         ("busy", 0, 10)]
    assert sorted(parts[4:]) == [("split", 0, 5), ("split", 5, 10)]


@needs_numba
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bn_epilogue_bitwise_equal_to_numpy(dtype):
    # the one-call epilogue (batch_norm's coefficients, affine, residual, activation) is
    # numpy's passes: global_stats_coefficients, then y * scale + bias (+ other), then act
    from phi.kernels.batch_norm import global_stats_coefficients

    c = 37
    mean = RNG.standard_normal(c).astype(dtype)
    var = RNG.uniform(0, 3, c).astype(dtype)
    scale = RNG.standard_normal(c).astype(dtype)
    bias = RNG.standard_normal(c).astype(dtype)
    var[:4] = [0.0, -1e-5, np.inf, np.nan]  # eps only, sqrt of a negative, 1/inf, NaN
    mean[4:7] = [np.inf, -0.0, np.nan]
    scale[7:9] = [0.0, -np.inf]
    var[9] = np.finfo(dtype).tiny
    want = global_stats_coefficients(np, mean, var, scale, bias, 1e-5, np.dtype(dtype))
    y = RNG.standard_normal((2, c, 5)).astype(dtype)
    y[0, :, 0] = [np.nan, -0.0, np.inf, -np.inf] * 9 + [0.0]
    other = RNG.standard_normal((2, c, 5)).astype(dtype)
    for act, fn in ((0, None), (1, lambda v: np.fmax(v, 0)), (2, lambda v: np.clip(v, 0, 6))):
        expect = y * want[0][:, None] + want[1][:, None]
        with_add = expect + other
        if fn is not None:
            expect, with_add = fn(expect), fn(with_add)
        got_y = y.copy()
        jit.kernels().bn_affine_act(got_y, mean, var, scale, bias, 1e-5, act, 0, c)
        assert got_y.tobytes() == expect.tobytes()
        got_y = y.copy()
        jit.kernels().bn_affine_add_act(got_y, mean, var, scale, bias, 1e-5, other, act, 0, c)
        assert got_y.tobytes() == with_add.tobytes()
        for loop, residual, full in (("bn_affine_act", (), expect),
                                     ("bn_affine_add_act", (other,), with_add)):
            part = y.copy()  # a channel range leaves the other channels alone
            getattr(jit.kernels(), loop)(part, mean, var, scale, bias, 1e-5, *residual, act,
                                         3, 9)
            assert part[:, 3:9].tobytes() == full[:, 3:9].tobytes()
            assert part[:, :3].tobytes() == y[:, :3].tobytes()
            assert part[:, 9:].tobytes() == y[:, 9:].tobytes()


IM2COL_CASES = [
    # (x shape, filter shape, strides, paddings, algorithm, dilations, groups, data_format)
    ((1, 3, 17, 15), (8, 3, 7, 7), [2, 2], [3, 3], "EXPLICIT", [1, 1], 1, "NCHW"),  # a stem
    ((2, 4, 9, 10), (6, 4, 3, 3), [2, 2], [1, 1], "EXPLICIT", [1, 1], 1, "NCHW"),
    ((1, 4, 9, 10), (6, 4, 3, 3), [1, 1], [1, 1], "EXPLICIT", [1, 1], 1, "NCHW"),
    ((1, 6, 11, 9), (6, 3, 3, 3), [1, 2], [0, 2, 1, 0], "EXPLICIT", [2, 1], 2, "NCHW"),
    ((1, 4, 8, 8), (5, 4, 1, 1), [2, 2], [0, 0], "EXPLICIT", [1, 1], 1, "NCHW"),  # downsample
    ((1, 2, 2, 3), (3, 2, 3, 3), [1, 1], [0, 0], "EXPLICIT", [1, 1], 1, "NCHW"),  # overhang
    ((1, 2, 6, 6), (3, 2, 3, 3), [3, 3], [4, 4], "EXPLICIT", [1, 1], 1, "NCHW"),  # pad rows
    ((1, 3, 10, 9), (4, 3, 3, 3), [2, 2], [0, 0], "SAME", [1, 1], 1, "NCHW"),
    ((2, 7, 8, 5), (4, 5, 3, 3), [2, 1], [1, 1], "EXPLICIT", [1, 1], 1, "NHWC"),
    ((1, 2, 9, 14), (3, 2, 3, 4), [2, 3], [1, 2, 2, 1], "EXPLICIT", [1, 2], 1, "NCHW"),
]


@pytest.mark.skipif(jit.kernels() is None, reason="numba is not installed")
@pytest.mark.parametrize("geometry", [
    # (x shape, kernel, strides, pads [top, bottom, left, right], dilations)
    ((1, 3, 17, 19), (7, 7), (2, 2), (3, 3, 3, 3), (1, 1)),  # the stem: column phases
    ((2, 2, 9, 8), (2, 3), (3, 2), (0, 2, 1, 0), (2, 1)),
    ((1, 1, 5, 11), (3, 3), (1, 3), (1, 1, 4, 0), (1, 2)),   # taps left of x: negative offsets
    ((1, 2, 9, 10), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),
    # stride 1, output as wide as x: each tap's rows one run of the plane (_tap_rows)
    ((1, 2, 9, 10), (3, 3), (1, 1), (2, 2, 2, 2), (2, 2)),   # dilated
    ((2, 3, 5, 4), (5, 5), (1, 1), (2, 2, 2, 2), (1, 1)),
    ((1, 2, 4, 2), (3, 5), (1, 1), (3, 1, 4, 0), (1, 1)),    # taps a row / x's width away
    ((1, 1, 2, 1), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),    # one column
    ((3, 2, 7, 7), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),    # several images: planes apart
    ((1, 2, 8, 9), (3, 1), (1, 1), (3, 9, 0, 0), (3, 1)),    # a block wholly below a tap's x
])
def test_compiled_im2col_rows_equal_numpy_columns(geometry):
    # any block of output rows: the numpy im2col's columns of those rows, NaN-free zeros
    xs, ksize, strides, pads, dils = geometry
    x = RNG.standard_normal(xs).astype(np.float32)
    _, _, out = conv_geometry(xs[2:], ksize, list(strides), list(pads), "EXPLICIT", list(dils))
    ho, wo = out
    want = conv_kernels.im2col(np, x, ksize, strides, list(pads), dils, out)
    want = want.reshape(xs[0], -1, ho, wo)
    for oy0, oy1 in ((0, ho), (0, 1), (ho // 2, ho), (1, ho - 1), (ho // 2, ho // 2 + 1)):
        cols = np.full((xs[0], want.shape[1], (oy1 - oy0) * wo), np.nan, np.float32)
        jit.kernels().im2col(x, cols, oy0, oy1, wo, *ksize, *strides, *dils, pads[0], pads[2])
        np.testing.assert_array_equal(cols, want[:, :, oy0:oy1].reshape(cols.shape))


@pytest.mark.skipif(jit.kernels() is None, reason="numba is not installed")
def test_compiled_im2col_stays_inside_its_arrays(tmp_path):
    # numba's bounds checks on (a fresh JIT, no build): the stride-1 runs start before or end
    # past x's plane by a tap's offset, and are clamped to it (a read outside would only show
    # here: the columns it lands in are zeroed after)
    code = textwrap.dedent("""
        import numpy as np
        from phi.kernels import conv
        from phi.kernels.funcs import jit
        assert jit.built() is None
        loops = jit.kernels()
        rng = np.random.default_rng(0)
        for xs, k, pads, dil in [((2, 3, 5, 4), (3, 3), (1, 1, 1, 1), (1, 1)),
                                 ((1, 2, 4, 2), (3, 5), (3, 1, 4, 0), (1, 1)),
                                 ((1, 2, 6, 3), (3, 3), (2, 2, 2, 2), (2, 2)),
                                 ((1, 2, 8, 9), (3, 1), (3, 9, 0, 0), (3, 1))]:
            x = rng.standard_normal(xs)
            _, _, out = conv.conv_geometry(xs[2:], k, [1, 1], list(pads), "EXPLICIT",
                                           list(dil))
            ho, wo = out
            want = conv.im2col(np, x, k, (1, 1), list(pads), dil, out)
            want = want.reshape(xs[0], -1, ho, wo)
            for oy0, oy1 in ((0, ho), (0, 1), (ho // 2, ho), (ho - 1, ho),
                             (ho // 2, ho // 2 + 1)):
                cols = np.empty((xs[0], want.shape[1], (oy1 - oy0) * wo))
                loops.im2col(x, cols, oy0, oy1, wo, *k, 1, 1, *dil, pads[0], pads[2])
                assert np.array_equal(cols, want[:, :, oy0:oy1].reshape(cols.shape))
        print("ok")
    """)
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path / "numba"),
               FLUID_PHI_KERNEL_CACHE=str(tmp_path / "kernels"))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0 and done.stdout.split() == ["ok"], done.stderr[-2000:]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", IM2COL_CASES)
def test_compiled_im2col_bitwise_equal_to_numpy(case, dtype, calls):
    # the compiled im2col copies the same taps (zeros outside x) for the same GEMM
    xs, ws, strides, paddings, algorithm, dils, groups, fmt = case
    x = RNG.standard_normal(xs).astype(dtype)
    w = RNG.standard_normal(ws).astype(dtype)
    args = (x, w, strides, paddings, algorithm, dils, groups, fmt)
    on = _run("conv2d", *args, {**SLOW, "FLAGS_kernel_numba": True})
    if HAVE_LOOPS and on.size:
        assert calls.get("im2col") == 1  # the compiled im2col made the columns
    off = _run("conv2d", *args, SLOW)
    np.testing.assert_array_equal(on, off)
    _assert_near(on, reference_conv(*args), 1e-5 if dtype == np.float32 else 1e-12)


def test_other_byte_order_takes_the_numpy_path():
    # the compiled loops take native float32 / float64 only (numba refuses '>f4'): a
    # big-endian input gives the native input's values, through the numpy path
    set_flags(FAST)
    x = RNG.standard_normal((1, 4, 9, 9)).astype(np.float32)
    w = RNG.standard_normal((4, 1, 3, 3)).astype(np.float32)
    wf = RNG.standard_normal((5, 4, 3, 3)).astype(np.float32)
    for native, swapped in (((x, w), (x.astype(">f4"), w.astype(">f4"))),
                            ((x, w), (x, w.astype(">f4")))):
        want = conv_kernels.depthwise_conv2d(CTX, *native, [1, 1], [1, 1], "EXPLICIT", 4,
                                             [1, 1], "NCHW")
        got = conv_kernels.depthwise_conv2d(CTX, *swapped, [1, 1], [1, 1], "EXPLICIT", 4,
                                            [1, 1], "NCHW")
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    got = conv_kernels.conv2d(CTX, x.astype(">f4"), wf.astype(">f4"), [1, 1], [1, 1],
                              "EXPLICIT", [1, 1], 1, "NCHW")
    want = conv_kernels.conv2d(CTX, x, wf, [1, 1], [1, 1], "EXPLICIT", [1, 1], 1, "NCHW")
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    def pool(a):
        return pooling.pool2d(CTX, a, IntArray([3, 3]), [2, 2], [1, 1], False, True, "NCHW",
                              "max", False, False, "EXPLICIT")

    np.testing.assert_array_equal(pool(x.astype(">f4")), pool(x))


def _blocks_of_3_rows(monkeypatch, w, wo: int) -> list:
    """Make im2col's blocks 3 output rows of a ``wo`` wide map for filter ``w`` (any number of
    columns); the list of each by-rows call's rows per block."""
    monkeypatch.setattr(conv_kernels, "_BLOCK_BYTES", 3 * w[0].size * wo * w.itemsize)
    monkeypatch.setattr(conv_kernels, "_BLOCK_MIN_COLUMNS", 1)
    blocks = []
    by_rows = conv_kernels._im2col_gemm_by_rows
    monkeypatch.setattr(conv_kernels, "_im2col_gemm_by_rows",
                        lambda *a: blocks.append(a[3]) or by_rows(*a))
    return blocks


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", [
    # (x shape, filter shape, strides, paddings, dilations)
    ((1, 3, 25, 20), (5, 3, 7, 7), [2, 2], [3, 3], [1, 1]),   # a stem; last block partial
    ((1, 4, 17, 13), (6, 4, 3, 3), [1, 2], [1, 0], [1, 1]),
    ((1, 2, 19, 16), (3, 2, 3, 3), [1, 1], [2, 2], [2, 2]),   # dilated, wide padding
])
def test_im2col_by_blocks_of_rows(case, dtype, monkeypatch):
    # FLAGS_conv_im2col_blocks: the compiled im2col and its GEMM a block of output rows at a
    # time (blocks made small here) equal the whole map's (up to BLAS's grouping) and the taps
    if jit.kernels() is None:
        pytest.skip("numba is not installed")
    xs, ws, strides, paddings, dilations = case
    x = RNG.standard_normal(xs).astype(dtype)
    w = RNG.standard_normal(ws).astype(dtype)
    args = (x, w, strides, paddings, "EXPLICIT", dilations, 1, "NCHW")
    off = _run("conv2d", *args, {**FAST, "FLAGS_conv_winograd": False,
                                 "FLAGS_conv_im2col_blocks": False})
    # blocks of 3 output rows (the last one partial where Ho is no multiple of 3)
    blocks = _blocks_of_3_rows(monkeypatch, w, off.shape[3])
    on = _run("conv2d", *args, {**FAST, "FLAGS_conv_winograd": False})
    assert blocks == [3]
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    _assert_near(on, off, rtol)
    _assert_near(on, reference_conv(*args), rtol)
    assert on.dtype == dtype and on.flags.c_contiguous


@pytest.mark.parametrize("shape, groups", [((2, 4, 25, 20), 1), ((1, 4, 25, 20), 2)])
def test_im2col_by_rows_only_for_one_ungrouped_image(shape, groups, monkeypatch):
    # the blocks' GEMM writes one image's [O, Ho * Wo] columns: a batch or groups keep the
    # whole-map path (a block of theirs would write past one image's columns)
    if jit.kernels() is None:
        pytest.skip("numba is not installed")
    x = RNG.standard_normal(shape).astype(np.float32)
    w = RNG.standard_normal((6, shape[1] // groups, 7, 7)).astype(np.float32)
    args = (x, w, [2, 2], [3, 3], "EXPLICIT", [1, 1], groups, "NCHW")
    blocks = _blocks_of_3_rows(monkeypatch, w, 10)  # Wo 10
    got = _run("conv2d", *args, {**FAST, "FLAGS_conv_winograd": False})
    assert blocks == []
    _assert_near(got, reference_conv(*args), 1e-5)
    one = (x[:1], w, [2, 2], [3, 3], "EXPLICIT", [1, 1], groups, "NCHW")
    _run("conv2d", *one, {**FAST, "FLAGS_conv_winograd": False})
    assert blocks == ([] if groups > 1 else [3])  # the same map, one ungrouped image: blocks


@pytest.mark.parametrize("numba", [True, False])
def test_channels_that_groups_do_not_divide_are_an_error(numba):
    # a direct kernel call (no InferMeta before it): InferMeta's message, not a garbage
    # channel from the compiled depthwise loop or numpy's reshape error
    from phi.core.errors import InvalidArgument

    x = RNG.standard_normal((1, 2, 4, 4)).astype(np.float32)
    cases = (((3, 1, 3, 3), 2, "output's channels .* divided by groups.*output channels is 3"),
             ((4, 1, 3, 3), 3, ("input's channels should be equal to filter's channels \\* "
                                "groups.*input's channels is 2")))
    for wshape, groups, message in cases:
        w = RNG.standard_normal(wshape).astype(np.float32)
        with pytest.raises(InvalidArgument, match=message):
            _run("conv2d", x, w, [1, 1], [1, 1], "EXPLICIT", [1, 1], groups, "NCHW",
                 {**FAST, "FLAGS_kernel_numba": numba})
