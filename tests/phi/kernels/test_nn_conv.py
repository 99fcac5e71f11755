"""conv2d and depthwise_conv2d: Paddle's recorded cases, a case worked by hand, and edge cases
checked against a direct (loop) evaluation of the definition; ConvInferMeta's errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import phi.kernels.conv as conv_module
from phi.common import DataType
from phi.core.errors import InvalidArgument
from phi.core.tensor import MetaTensor
from phi.infermeta import conv_infer_meta
from phi.infermeta.funcs import MetaConfig
from tests.phi.kernels.test_nn_support import (
    assert_case_output,
    corpus_cases,
    load_case,
    run_kernel,
)

RNG = np.random.default_rng(7)


def reference_conv(x, w, strides, pads, dilations, groups):
    """The definition, one output pixel at a time (NCHW; pads = top, bottom, left, right)."""
    n, _c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pads[:2], pads[2:]))
    ho = (h + pads[0] + pads[1] - (dilations[0] * (kh - 1) + 1)) // strides[0] + 1
    wo = (wd + pads[2] + pads[3] - (dilations[1] * (kw - 1) + 1)) // strides[1] + 1
    out = np.zeros((n, o, ho, wo))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(ho):
            for j in range(wo):
                r0, c0 = i * strides[0], j * strides[1]
                patch = xp[:, g * cg:(g + 1) * cg,
                           r0:r0 + dilations[0] * (kh - 1) + 1:dilations[0],
                           c0:c0 + dilations[1] * (kw - 1) + 1:dilations[1]]
                out[:, oc, i, j] = np.sum(patch * w[oc], axis=(1, 2, 3))
    return out.astype(x.dtype)


def conv(x, w, strides=(1, 1), paddings=(0, 0), algorithm="EXPLICIT", dilations=(1, 1),
         groups=1, data_format="NCHW"):
    return run_kernel("conv2d", [x, w], [list(strides), list(paddings), algorithm,
                                         list(dilations), groups, data_format])


# -- Paddle's recorded outputs ------------------------------------------------------------------

@pytest.mark.parametrize("name", corpus_cases("conv2d", "depthwise_conv2d",
                                              fallback=("conv2d_pad1", "depthwise_conv2d")))
def test_matches_paddle(name):
    case, arrays, a = load_case(name)
    x, w = arrays["in.Input.0"], arrays["in.Filter.0"]
    if case["op_type"] == "depthwise_conv2d":
        out = run_kernel("depthwise_conv2d", [x, w],
                         [a["strides"], a["paddings"], a["padding_algorithm"], a["groups"],
                          a["dilations"], a["data_format"]])
    else:
        out = run_kernel("conv2d", [x, w],
                         [a["strides"], a["paddings"], a["padding_algorithm"], a["dilations"],
                          a["groups"], a["data_format"]])
    assert_case_output(case, out, arrays, "Output")


# -- by hand and against the definition -------------------------------------------------------

def test_3x3_input_2x2_kernel_by_hand():
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)   # 1 2 3 / 4 5 6 / 7 8 9
    w = np.array([[1, 2], [3, 4]], dtype=np.float32).reshape(1, 1, 2, 2)
    # out[0,0] = 1*1 + 2*2 + 4*3 + 5*4 = 37, then 47, 67, 77
    np.testing.assert_array_equal(conv(x, w), [[[[37, 47], [67, 77]]]])
    # padding 1 adds a ring: the corner sees only x[0,0] under w[1,1]: 1*4
    out = conv(x, w, paddings=(1, 1))
    assert out.shape == (1, 1, 4, 4)
    assert out[0, 0, 0, 0] == 4 and out[0, 0, 3, 3] == 9 * 1


EDGE = {
    "stride2": {"strides": (2, 2)},
    "stride_hw": {"strides": (2, 1), "paddings": (1, 0)},
    "dilation2": {"dilations": (2, 2), "paddings": (2, 2)},
    "dilation_stride": {"dilations": (2, 1), "strides": (2, 2), "paddings": (1, 1)},
    "asym_pad": {"paddings": (0, 2, 1, 0)},
    "asym_pad_stride": {"paddings": (1, 2, 2, 0), "strides": (2, 3)},
    "groups2": {"groups": 2, "paddings": (1, 1)},
    "groups4_dil": {"groups": 4, "dilations": (1, 2), "paddings": (0, 2)},
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(EDGE))
def test_edge_cases_against_the_definition(name, dtype):
    kw = EDGE[name]
    groups = kw.get("groups", 1)
    x = RNG.standard_normal((2, 4, 7, 8)).astype(dtype)
    w = RNG.standard_normal((6 if groups != 4 else 8, 4 // groups, 3, 3)).astype(dtype)
    p = list(kw.get("paddings", (0, 0)))
    pads = p if len(p) == 4 else [p[0], p[0], p[1], p[1]]
    want = reference_conv(x, w, kw.get("strides", (1, 1)), pads, kw.get("dilations", (1, 1)),
                          groups)
    got = conv(x, w, **kw)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_nhwc_is_nchw_transposed():
    x = RNG.standard_normal((2, 4, 6, 5)).astype(np.float32)
    w = RNG.standard_normal((6, 2, 3, 2)).astype(np.float32)
    kw = {"strides": (2, 1), "paddings": (1, 0, 2, 1), "dilations": (1, 2), "groups": 2}
    nchw = conv(x, w, **kw)
    nhwc = conv(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), w, data_format="NHWC", **kw)
    assert nhwc.flags.c_contiguous
    np.testing.assert_allclose(nhwc, nchw.transpose(0, 2, 3, 1), rtol=1e-6, atol=1e-6)


def test_same_and_valid_padding():
    x = RNG.standard_normal((1, 2, 7, 6)).astype(np.float64)
    w = RNG.standard_normal((3, 2, 3, 2)).astype(np.float64)
    # SAME: out = ceil(in / stride); pad_sum = (out-1)*s + k - in split low/high, dilation 1
    same = conv(x, w, strides=(2, 2), paddings=(5, 5), algorithm="SAME", dilations=(3, 3))
    assert same.shape == (1, 3, 4, 3)
    # H: out 4, pad_sum = 3*2 + 3 - 7 = 2 -> (1, 1); W: out 3, pad_sum = 2*2 + 2 - 6 = 0
    np.testing.assert_allclose(same, reference_conv(x, w, (2, 2), [1, 1, 0, 0], (1, 1), 1))
    valid = conv(x, w, paddings=(3, 3), algorithm="VALID")
    np.testing.assert_allclose(valid, reference_conv(x, w, (1, 1), [0, 0, 0, 0], (1, 1), 1))


# -- depthwise ---------------------------------------------------------------------------------

@pytest.mark.parametrize("multiplier", [1, 2])
@pytest.mark.parametrize("kw", [{}, {"strides": (2, 2), "paddings": (1, 1)},
                                {"dilations": (2, 2), "paddings": (1, 2, 0, 3)}])
def test_depthwise_against_the_definition(multiplier, kw):
    c = 5
    x = RNG.standard_normal((2, c, 9, 8)).astype(np.float32)
    w = RNG.standard_normal((c * multiplier, 1, 3, 3)).astype(np.float32)
    strides, dil = list(kw.get("strides", (1, 1))), list(kw.get("dilations", (1, 1)))
    p = list(kw.get("paddings", (0, 0)))
    got = run_kernel("depthwise_conv2d", [x, w], [strides, p, "EXPLICIT", c, dil, "NCHW"])
    pads = p if len(p) == 4 else [p[0], p[0], p[1], p[1]]
    np.testing.assert_allclose(got, reference_conv(x, w, strides, pads, dil, c), rtol=1e-5,
                               atol=1e-5)
    same_as_conv = conv(x, w, groups=c, **kw)
    np.testing.assert_allclose(got, same_as_conv, rtol=1e-5, atol=1e-5)


def test_depthwise_many_channels_spans_several_blocks_and_nhwc(monkeypatch):
    monkeypatch.setattr(conv_module, "_COLS_BLOCK_BYTES", 4 * 9 * 40 * 42 * 8)  # 8 channels
    x = RNG.standard_normal((1, 70, 40, 40)).astype(np.float32)  # > 1 channel block
    w = RNG.standard_normal((70, 1, 3, 3)).astype(np.float32)
    args = [[1, 1], [1, 1], "EXPLICIT", 70, [1, 1]]
    nchw = run_kernel("depthwise_conv2d", [x, w], [*args, "NCHW"])
    for lo, hi in ((0, 3), (66, 70)):  # channels of the first and of the last block
        want = reference_conv(x[:, lo:hi], w[lo:hi], (1, 1), [1] * 4, (1, 1), hi - lo)
        np.testing.assert_allclose(nchw[:, lo:hi], want, rtol=1e-5, atol=1e-5)
    nhwc = run_kernel("depthwise_conv2d", [np.ascontiguousarray(x.transpose(0, 2, 3, 1)), w],
                      [*args, "NHWC"])
    np.testing.assert_allclose(nhwc, nchw.transpose(0, 2, 3, 1), rtol=1e-6, atol=1e-6)


@settings(max_examples=60, deadline=None)
@given(c=st.integers(1, 4), m=st.integers(1, 2), kh=st.integers(1, 4), kw=st.integers(1, 4),
       h=st.integers(1, 9), w=st.integers(1, 9), sh=st.integers(1, 3), sw=st.integers(1, 3),
       dh=st.integers(1, 2), dw=st.integers(1, 2), pads=st.lists(st.integers(0, 3), min_size=4,
                                                                  max_size=4))
def test_depthwise_any_stride_dilation_and_padding(c, m, kh, kw, h, w, sh, sw, dh, dw, pads):
    """Columns over stride phases give the definition for every geometry with an output."""
    ho = (h + pads[0] + pads[1] - (dh * (kh - 1) + 1)) // sh + 1
    wo = (w + pads[2] + pads[3] - (dw * (kw - 1) + 1)) // sw + 1
    assume(ho > 0 and wo > 0)
    x = RNG.standard_normal((2, c, h, w)).astype(np.float32)
    f = RNG.standard_normal((c * m, 1, kh, kw)).astype(np.float32)
    got = run_kernel("depthwise_conv2d", [x, f], [[sh, sw], pads, "EXPLICIT", c, [dh, dw],
                                                   "NCHW"])
    want = reference_conv(x, f, (sh, sw), pads, (dh, dw), c)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 2), groups=st.integers(1, 2), cg=st.integers(1, 3), og=st.integers(1, 2),
       kh=st.integers(1, 4), kw=st.integers(1, 4), h=st.integers(1, 8), w=st.integers(1, 8),
       sh=st.integers(1, 3), sw=st.integers(1, 3), dh=st.integers(1, 2), dw=st.integers(1, 2),
       pads=st.lists(st.integers(0, 3), min_size=4, max_size=4))
def test_grouped_conv_any_geometry(n, groups, cg, og, kh, kw, h, w, sh, sw, dh, dw, pads):
    """Phase-flattened im2col + GEMM gives the definition for every geometry with an output
    (1x1 with stride 1 and no padding takes the no-copy path)."""
    ho = (h + pads[0] + pads[1] - (dh * (kh - 1) + 1)) // sh + 1
    wo = (w + pads[2] + pads[3] - (dw * (kw - 1) + 1)) // sw + 1
    assume(ho > 0 and wo > 0)
    x = RNG.standard_normal((n, groups * cg, h, w)).astype(np.float32)
    f = RNG.standard_normal((groups * og, cg, kh, kw)).astype(np.float32)
    got = conv(x, f, (sh, sw), pads, dilations=(dh, dw), groups=groups)
    want = reference_conv(x, f, (sh, sw), pads, (dh, dw), groups)
    assert got.shape == want.shape and got.flags.c_contiguous
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kw", [1, 3])
@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_results_survive_the_next_call(kw, data_format):
    """Work arrays are reused between calls: a result never lives in one."""
    x = RNG.standard_normal((1, 4, 6, 6)).astype(np.float32)
    if data_format == "NHWC":
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    w = RNG.standard_normal((4, 1, kw, kw)).astype(np.float32)
    args = [[1, 1], [kw // 2, kw // 2], "EXPLICIT", 4, [1, 1], data_format]
    first = run_kernel("depthwise_conv2d", [x, w], args)
    kept = first.copy()
    run_kernel("depthwise_conv2d", [x * 2 + 1, w * 3], args)
    np.testing.assert_array_equal(first, kept)


def test_outputs_do_not_alias_inputs():
    x = RNG.standard_normal((1, 1, 3, 3)).astype(np.float32)
    w = np.ones((1, 1, 1, 1), np.float32)
    out = conv(x, w)
    out[...] = 0
    assert np.any(x != 0)


# -- InferMeta ----------------------------------------------------------------------------------

def _infer(x_dims, w_dims, *, config=None, **kw):
    out = MetaTensor()
    args = {"strides": [1, 1], "paddings": [0, 0], "padding_algorithm": "EXPLICIT",
            "dilations": [1, 1], "groups": 1, "data_format": "NCHW"}
    args.update(kw)
    conv_infer_meta(MetaTensor(x_dims, DataType.FLOAT32), MetaTensor(w_dims, DataType.FLOAT32),
                    args["strides"], args["paddings"], args["padding_algorithm"],
                    args["dilations"], args["groups"], args["data_format"], out, config=config)
    return out


@pytest.mark.parametrize("kw, match", [
    ({"groups": 3}, "channels"),
    ({"groups": 0}, "groups"),
    ({"strides": [0, 1]}, "stride"),
    ({"dilations": [1, -1]}, "dilation"),
    ({"paddings": [1, 1, 1]}, "padding"),
    ({"strides": [1, 1, 1]}, "strides"),
    ({"data_format": "NHWC"}, "channels"),
])
def test_infer_meta_errors(kw, match):
    with pytest.raises(InvalidArgument, match=match):
        _infer((1, 4, 5, 5), (6, 4, 3, 3), **kw)


def test_infer_meta_output_must_not_be_negative_and_compile_time_unknowns():
    # (2 - 3) / 1 + 1 = 0: an empty output, as Paddle 2.6.2; (2 - 4) / 1 + 1 = -1 raises
    assert _infer((1, 4, 2, 2), (6, 4, 3, 3)).dims == (1, 6, 0, 0)
    with pytest.raises(InvalidArgument, match="at least 0"):
        _infer((1, 4, 2, 2), (6, 4, 4, 4))
    with pytest.raises(InvalidArgument, match="4-D or 5-D"):
        _infer((4, 5, 5), (6, 4, 3))
    out = _infer((-1, 4, -1, 5), (6, 4, 3, 3), config=MetaConfig(is_runtime=False))
    assert out.dims == (-1, 6, -1, 3) and out.dtype == DataType.FLOAT32
    assert _infer((2, 5, 5, 4), (6, 2, 3, 3), groups=2, data_format="NHWC").dims == (2, 3, 3, 6)


def test_output_size_truncates_like_cpp():
    # (1 + 0 - 3) / 2 + 1 = -2 / 2 + 1 = 0 in C++ (floor division would say -1 + 1 = 0 too);
    # (2 - 3) / 2 + 1 = 0 / ... : -1 / 2 truncates to 0 -> size 1, where floor gives 0
    assert _infer((1, 1, 2, 2), (1, 1, 3, 3), strides=[2, 2]).dims == (1, 1, 1, 1)
