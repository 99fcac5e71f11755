"""Bound kernels (phi.core.bound): a binder's callable gives what its kernel gives, bit for bit,
on the inputs it was bound for and on any other (it falls back to the kernel then)."""

from __future__ import annotations

import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phi.backends.cpu import CPUContext
from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.place import CPUPlace
from phi.common.scalar import Scalar
from phi.core import bound
from phi.core.errors import InvalidArgument, PreconditionNotMet
from phi.flags import set_flags
from phi.kernels.activation import relu
from phi.kernels.cast import cast
from phi.kernels.conv import conv2d, depthwise_conv2d
from phi.kernels.full import full, full_like
from phi.kernels.elementwise import add, multiply, subtract
from phi.kernels.reshape import reshape
from phi.kernels.transpose import transpose
from phi.kernels.unsqueeze import unsqueeze
from phi.kernels.scale import scale_float
from phi.kernels.slice import slice_kernel

CTX = CPUContext(CPUPlace())


def _meta(a):
    return (DataType.from_any(a.dtype), tuple(a.shape))


def _same(got, want):
    """Equal type, dtype, dims and bits (NaN payloads included), element by element."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _same(g, w)
        return
    assert type(got) is type(want) is np.ndarray
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def _inlined(b, inputs):
    """What the bound form's written-out arithmetic (``b.inline``) computes on ``inputs``."""
    ns = {f"in{k}": a for k, a in enumerate(inputs)}

    def const(value):
        name = f"k{len(ns)}"
        ns[name] = value
        return name

    lines = b.inline("out", [f"in{k}" for k in range(len(inputs))], const)
    exec("\n".join(lines), ns)  # the generated lines, as a segment runs them
    return ns["out"]


def _check(fn, attrs, planned, *inputs):
    """bound (made for ``planned`` inputs) on ``inputs`` == fn on them, or the same error; its
    written-out form too, on the planned inputs (the only ones a segment gives it)."""
    b = bound.bind(fn, CTX, attrs, [_meta(a) for a in planned])
    assert b is not None, f"{fn.__name__} has no bound form"
    try:
        want = fn(CTX, *inputs, *attrs)
    except Exception as exc:  # the bound form raises what the kernel raises
        with pytest.raises(type(exc)):
            b(*inputs)
        return
    _same(b(*inputs), want)
    if getattr(b, "inline", None) is not None and all(
            a.dtype == p.dtype and a.shape == p.shape for a, p in zip(inputs, planned,
                                                                      strict=True)):
        _same(_inlined(b, inputs), want)


@pytest.fixture(autouse=True)
def _flag_on():
    set_flags({bound.BIND_FLAG: True})
    yield
    set_flags({bound.BIND_FLAG: True})


F32 = np.array([[1.5, -0.0, np.nan], [np.inf, -np.inf, 3e38]], np.float32)
F64 = np.array([0.1, -2.5, 1e-310, np.nan])


@pytest.mark.parametrize("after", [True, False])
@pytest.mark.parametrize("s,b", [(1.01, 0.001), (-10000.0, 0.0), (0.0, -0.0), (2.0, np.nan)])
def test_scale_float(after, s, b):
    attrs = (Scalar(s), b, after)
    for x in (F32, F64, np.array(2.5, np.float32), np.zeros((0, 3), np.float32)):
        _check(scale_float, attrs, [x], x)
    _check(scale_float, attrs, [F32], F64)  # another dtype than planned: the kernel's way
    _check(scale_float, attrs, [F32], np.array(7.0, np.float32))  # 0-d
    with np.errstate(all="ignore"):
        _check(scale_float, attrs, [F32], F32 * np.float32(1e30))  # overflow to inf


@pytest.mark.parametrize("kernel", [add, subtract, multiply])
def test_binary(kernel):
    ints = np.array([2**31 - 1, -5, 7], np.int32)
    cases = [
        (F32, F32[0]),  # broadcasting
        (F64, np.float64(3.0) * np.ones((2, 1, 4))),
        (ints, np.array([1, 2, 3], np.int32)),  # wraps
        (np.array(1.5, np.float32), np.array(2.0, np.float32)),  # 0-d: an array, not a scalar
        (np.zeros((0, 3), np.float32), np.ones((0, 3), np.float32)),  # empty, same dims
        (np.zeros((0, 3), np.float32), np.ones(3, np.float32)),  # empty broadcast: refused
        (np.array([True, False]), np.array([True, True])),
    ]
    for x, y in cases:
        with np.errstate(all="ignore"):
            _check(kernel, (), [x, y], x, y)
    with pytest.raises(PreconditionNotMet):
        bound.bind(kernel, CTX, (), [_meta(F32), _meta(F32)])(
            np.zeros((0, 3), np.float32), np.ones(3, np.float32))


def test_relu():
    for x in (F32, F64, np.array([-0.0, 0.0, -1], np.float32), np.array(-2.0, np.float32),
              np.zeros((0, 2), np.float32)):
        _check(relu, (), [x], x)
    _check(relu, (), [F32], F64)  # another dtype than planned: the kernel's way
    got = bound.bind(relu, CTX, (), [_meta(F32)])(np.array([np.nan, -0.0], np.float32))
    assert got[0] == 0 and not np.signbit(got[1])  # NaN -> 0, -0.0 -> +0.0 (the kernel's)


def test_reshape_and_unsqueeze():
    x = np.arange(2 * 8 * 32, dtype=np.float32).reshape(2, 8, 32)
    _check(reshape, (IntArray([0, 0, 4, 8]),), [x], x)
    _check(reshape, (IntArray([-1, 32]),), [x], x[:, ::2])  # other dims: the kernel's way
    _check(reshape, (IntArray([0, -1]),), [x], x[:, ::-1])  # non-contiguous, planned dims
    _check(reshape, (IntArray([4, -1]),), [x], x.astype(np.int64))
    y = np.ones((2, 8, 35), np.float32)
    _check(reshape, (IntArray([0, 0, 5, -1]),), [y], y)
    _check(reshape, (IntArray([0, 0, 5, -1]),), [y], x)  # the kernel's error for other dims
    _check(unsqueeze, (IntArray([1, 2]),), [x], x)
    _check(unsqueeze, (IntArray([-1]),), [x], np.ones((3,), np.float32))
    # attributes that do not fit the planned dims: no bound form, the kernel raises at the call
    assert bound.bind(reshape, CTX, (IntArray([5, -1]),), [_meta(x)]) is None
    with pytest.raises(InvalidArgument):
        reshape(CTX, x, IntArray([5, -1]))


def test_transpose():
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    _check(transpose, ([0, 2, 1],), [x], x)
    _check(transpose, ([-1, 0, 1],), [x], x[:, ::-1])  # layout of the copy is the kernel's
    got = bound.bind(transpose, CTX, ([2, 0, 1],), [_meta(x)])(x)
    assert got.strides == transpose(CTX, x, [2, 0, 1]).strides
    _check(transpose, ([1, 0],), [np.ones((3, 5))], x)  # other rank: the kernel's error
    _check(transpose, ([0, 2, 1],), [x], np.ones((1, 2, 3), np.int8))


def test_full_and_full_like_give_fresh_arrays():
    for attrs in ((IntArray([2, 3]), Scalar(1.5), DataType.FLOAT32),
                  (IntArray([]), Scalar(0.0), DataType.INT64),
                  (IntArray([0, 4]), Scalar(np.nan), DataType.FLOAT64)):
        _check(full, attrs, [])
    b = bound.bind(full, CTX, (IntArray([2]), Scalar(7), DataType.INT32), [])
    first = b()
    first[0] = 0  # writing into one output changes no later one
    _same(b(), np.array([7, 7], np.int32))
    assert bound.bind(full, CTX, (IntArray([-1]), Scalar(0), DataType.INT32), []) is None
    x = np.ones((2, 8), np.float32)
    for attrs in ((Scalar(1.0), DataType.INT64), (Scalar(-np.inf), DataType.UNDEFINED),
                  (Scalar(3.0), DataType.FLOAT64)):
        _check(full_like, attrs, [x], x)
        _check(full_like, attrs, [x], np.ones((3,), np.int32))  # other dims and dtype
        _check(full_like, attrs, [x], np.ones((0, 8), np.float32))
    # out of range: no bound form, the kernel raises at the call
    assert bound.bind(full_like, CTX, (Scalar(1e10), DataType.INT32), [_meta(x)]) is None
    with pytest.raises(InvalidArgument):
        full_like(CTX, x, Scalar(1e10), DataType.INT32)


def test_cast():
    values = np.array([0.0, -1.5, 2.5, np.nan, np.inf, 1e39], np.float64)
    for src, dst in ((np.float64, DataType.FLOAT32), (np.bool_, DataType.FLOAT32),
                     (np.int64, DataType.FLOAT32), (np.float32, DataType.FLOAT32),
                     (np.int32, DataType.INT64), (np.float64, DataType.COMPLEX64)):
        with np.errstate(all="ignore"):
            x = values.astype(src)
        _check(cast, (dst,), [x], x)
        _check(cast, (dst,), [x], np.array(3, np.int8))  # other dtype: the kernel's way
    # the paths with their own rounding rules stay the kernel's: no bound form
    for src, dst in ((np.float32, DataType.INT32), (np.float32, DataType.BOOL),
                     (np.float32, DataType.FLOAT16), (np.complex64, DataType.FLOAT32),
                     (np.float32, DataType.BFLOAT16)):
        assert bound.bind(cast, CTX, (dst,), [_meta(np.zeros(2, src))]) is None
    x = np.arange(6, dtype=np.float32).reshape(2, 3)[:, ::2]
    _check(cast, (DataType.FLOAT32,), [x], x)  # the copy keeps the kernel's layout


def test_slice():
    x = np.arange(2 * 8 * 32, dtype=np.float32).reshape(2, 8, 32)
    for attrs in (([1], IntArray([0]), IntArray([1]), [1], [1]),
                  ([0, 2], IntArray([-1, 4]), IntArray([100, -4]), [1, 1], []),
                  ([2], IntArray([5]), IntArray([5]), [1], []),  # empty
                  ([1, 0], IntArray([3, 1]), IntArray([4, 2]), [1, 1], [-2, 0])):
        _check(slice_kernel, attrs, [x], x)
        _check(slice_kernel, attrs, [x], x[:, :4])  # other dims: the kernel's way
    _check(slice_kernel, ([1], IntArray([0]), IntArray([1]), [1], [1]), [x],
           x.astype(np.int64))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=0,
                max_size=12),
       st.floats(width=32, allow_nan=False), st.floats(width=32, allow_nan=False),
       st.booleans())
def test_scale_property(values, s, b, after):
    x = np.array(values, np.float32)
    with np.errstate(all="ignore"):
        _check(scale_float, (Scalar(s), b, after), [x], x)


def test_written_out_only_for_arrays_of_planned_non_empty_dims():
    x = np.ones((2, 3), np.float32)
    attrs = (Scalar(2.0), 0.5, True)
    assert bound.bind(scale_float, CTX, attrs, [_meta(x)]).inline is not None
    zero_d = np.ones((), np.float32)  # numpy gives a scalar there, the kernel an array
    assert getattr(bound.bind(scale_float, CTX, attrs, [_meta(zero_d)]), "inline", None) is None
    assert bound.bind(add, CTX, (), [_meta(x), _meta(x)]).inline is not None
    for y in (np.ones((0, 3), np.float32), np.ones((), np.float32)):
        assert getattr(bound.bind(add, CTX, (), [_meta(x), _meta(y)]), "inline", None) is None


def test_flag_off_and_other_devices():
    set_flags({bound.BIND_FLAG: False})
    assert bound.bind(add, CTX, (), [_meta(F32), _meta(F32)]) is None
    set_flags({bound.BIND_FLAG: True})
    before = bound.epoch()
    set_flags({bound.BIND_FLAG: False})
    assert bound.epoch() != before  # generated code holding bound forms re-generates
    set_flags({bound.BIND_FLAG: True})
    other = types.SimpleNamespace(xp=object(), place=CPUPlace())
    for fn, attrs, n in ((add, (), 2), (scale_float, (Scalar(2.0), 0.0, True), 1),
                         (reshape, (IntArray([-1]),), 1), (transpose, ([0, 1],), 1),
                         (relu, (), 1),
                         (unsqueeze, (IntArray([0]),), 1), (cast, (DataType.FLOAT64,), 1),
                         (full, (IntArray([1]), Scalar(1), DataType.INT32), 0),
                         (full_like, (Scalar(1), DataType.INT32), 1),
                         (slice_kernel, ([0], IntArray([0]), IntArray([1]), [1], []), 1)):
        assert bound.bind(fn, other, attrs, [_meta(F32)] * n) is None


_CONV_RNG = np.random.default_rng(3)


def _conv_case(xs, ws, dtype=np.float32):
    x = _CONV_RNG.standard_normal(xs).astype(dtype)
    x.reshape(-1)[:3] = [np.nan, -0.0, np.inf]
    return x, _CONV_RNG.standard_normal(ws).astype(dtype)


@pytest.mark.parametrize("numba", [True, False])
@pytest.mark.parametrize("gemm_1x1", [True, False])
def test_conv(numba, gemm_1x1):
    # conv2d / depthwise_conv2d bound to their planned dims: the 1x1 GEMM, the compiled
    # depthwise loop and the general path, each the kernel's bits; other inputs (dims, dtype,
    # layout) the kernel's way, the flags read on every call
    set_flags({"FLAGS_kernel_numba": numba, "FLAGS_conv_1x1_gemm": gemm_1x1})
    try:
        x1, w1 = _conv_case((2, 6, 5, 4), (8, 6, 1, 1))                       # 1x1 GEMM, N 2
        x1b, w1b = _conv_case((1, 6, 5, 4), (8, 6, 1, 1))                     # 1x1 GEMM, N 1
        x3, w3 = _conv_case((1, 4, 9, 7), (6, 2, 3, 3))                       # grouped 3x3
        xd, wd = _conv_case((1, 5, 9, 8), (10, 1, 3, 3), np.float64)          # depthwise x2
        nchw = ("NCHW",)
        for x, w in ((x1, w1), (x1b, w1b)):
            _check(conv2d, ([1, 1], [0, 0], "EXPLICIT", [1, 1], 1, *nchw), [x, w], x, w)
        attrs3 = ([2, 1], [1, 2], "EXPLICIT", [1, 2], 2, *nchw)
        _check(conv2d, attrs3, [x3, w3], x3, w3)
        _check(conv2d, attrs3, [x3, w3], x3[:, :, :8], w3)        # other dims: the kernel's
        _check(conv2d, attrs3, [x3, w3], x3.astype(np.float64), w3.astype(np.float64))
        dw_attrs = ([1, 2], [1, 1], "SAME", 5, [1, 1], *nchw)
        _check(depthwise_conv2d, dw_attrs, [xd, wd], xd, wd)
        _check(depthwise_conv2d, dw_attrs, [xd, wd], xd[:, :, ::2], wd)  # strided view
        # a filter other than planned (dims, dtype): the kernel's way (or its error)
        _check(depthwise_conv2d, dw_attrs, [xd, wd], xd, np.concatenate([wd, wd]))
        _check(depthwise_conv2d, dw_attrs, [xd, wd], xd, wd.astype(np.float32))
        _check(depthwise_conv2d, dw_attrs, [xd, wd], xd.astype(np.float16),
               wd.astype(np.float16))
        _check(conv2d, ([1, 1], [0, 0], "EXPLICIT", [1, 1], 1, *nchw), [x1, w1], x1,
               np.concatenate([w1, w1]))
        _check(conv2d, attrs3, [x3, w3], x3, w3[:, :, :2])
    finally:
        set_flags({"FLAGS_kernel_numba": True, "FLAGS_conv_1x1_gemm": True})
    # not bound: NHWC, an integer dtype, an empty batch, channels that do not divide
    assert bound.bind(conv2d, CTX, ([1, 1], [0, 0], "EXPLICIT", [1, 1], 1, "NHWC"),
                      [_meta(x1), _meta(w1)]) is None
    xe = np.zeros((0, 6, 5, 4), np.float32)
    assert bound.bind(conv2d, CTX, ([1, 1], [0, 0], "EXPLICIT", [1, 1], 1, "NCHW"),
                      [_meta(xe), _meta(w1)]) is None
    assert bound.bind(conv2d, CTX, ([1, 1], [0, 0], "EXPLICIT", [1, 1], 4, "NCHW"),
                      [_meta(x1), _meta(w1)]) is None
    xi, wi = np.zeros(x1b.shape, np.int32), np.zeros(w1b.shape, np.int32)
    assert bound.bind(conv2d, CTX, ([1, 1], [0, 0], "EXPLICIT", [1, 1], 1, "NCHW"),
                      [_meta(xi), _meta(wi)]) is None


def test_bound_conv_reads_its_flags_on_every_call(monkeypatch):
    # bound with the 1x1 GEMM and the compiled loops on; switched off afterwards, the same
    # bound forms leave those paths (and still give the kernel's bits)
    from phi.kernels.funcs import jit

    x1, w1 = _conv_case((1, 6, 5, 4), (8, 6, 1, 1))
    xd, wd = _conv_case((1, 5, 9, 8), (5, 1, 3, 3))
    b1 = bound.bind(conv2d, CTX, ([1, 1], [0, 0], "EXPLICIT", [1, 1], 1, "NCHW"),
                    [_meta(x1), _meta(w1)])
    dw_attrs = ([1, 1], [1, 1], "EXPLICIT", 5, [1, 1], "NCHW")
    bd = bound.bind(depthwise_conv2d, CTX, dw_attrs, [_meta(xd), _meta(wd)])
    from phi.kernels import conv as conv_module

    general = []  # calls of the kernel's general path (the bound GEMM does not take it)
    conv_nchw = conv_module._conv_nchw
    monkeypatch.setattr(conv_module, "_conv_nchw",
                        lambda *a: general.append(1) or conv_nchw(*a))
    loops = jit.kernels()
    loops_calls = []
    if loops is not None:
        depthwise = loops.depthwise
        monkeypatch.setattr(loops, "depthwise",
                            lambda *a: loops_calls.append(1) or depthwise(*a))
    try:
        for on in (True, False):
            set_flags({"FLAGS_conv_1x1_gemm": on, "FLAGS_kernel_numba": on})
            general.clear()
            loops_calls.clear()
            _same(b1(x1, w1), conv2d(CTX, x1, w1, [1, 1], [0, 0], "EXPLICIT", [1, 1], 1,
                                      "NCHW"))
            assert len(general) == (1 if on else 2)  # the reference kernel's; off: the bound's
            _same(bd(xd, wd), depthwise_conv2d(CTX, xd, wd, *dw_attrs))
            if loops is not None:
                assert len(loops_calls) == (2 if on else 0)
    finally:
        set_flags({"FLAGS_conv_1x1_gemm": True, "FLAGS_kernel_numba": True})
