"""Kernels and InferMeta of the manipulation / creation ops on hand-worked values: the ops
Paddle's legacy executor cannot run (full_int_array segfaults there; tensor_unfold, as_strided,
view_dtype and view_shape have STRIDED kernels only), compile-time dims (-1), and the rules
Paddle's C++ fixes (float arithmetic of temporal_shift's channel split, std::unique's
duplicate check of flip).
Paddle's own outputs are the committed tests/fixtures/single_ops cases (tools/fixtures/cases/
manip.py), run by tests/fluid_compat/operators/test_corpus_cases.py."""

from __future__ import annotations

import numpy as np
import pytest

from phi.backends import get_context
from phi.common import CPUPlace, DataType, IntArray, Scalar
from phi.common.layout import DataLayout
from phi.core.errors import NotFound, PhiError
from phi.core.tensor import MetaTensor
from phi.infermeta import MetaConfig
import phi.infermeta as im
from phi.kernels.as_strided import as_strided as manip_as_strided
from phi.kernels.eye import eye
from phi.kernels.fill import fill
from phi.kernels.fill_diagonal import fill_diagonal
from phi.kernels.flip import flip as manip_flip
from phi.kernels.logspace import logspace
from phi.kernels.reverse import reverse
from phi.kernels.roll import roll
from phi.kernels.temporal_shift import temporal_shift as manip_temporal_shift
from phi.kernels.tensor_unfold import tensor_unfold as manip_tensor_unfold
from phi.kernels.view import view_dtype as manip_view_dtype, view_shape as manip_view_shape
from tests.phi.kernels.conftest import assert_array

CTX = get_context(CPUPlace())
COMPILE = MetaConfig(is_runtime=False)
F32 = DataType.FLOAT32


def meta(dims, dtype=F32):
    return MetaTensor(tuple(dims), dtype, DataLayout.NCHW)


def test_full_int_array(run_op):
    assert_array(run_op("full_int_array", [3, -1, 2], DataType.INT64),
                 np.array([3, -1, 2], np.int64))
    assert_array(run_op("full_int_array", [2**31 + 1], DataType.INT32),
                 np.array([-(2**31) + 1], np.int32))  # static_cast<int32_t> wraps


def test_strided_only_kernels_are_not_selected_for_dense_keys(run_op):
    with pytest.raises(NotFound, match="STRIDED"):
        run_op("view_shape", np.zeros((2, 3), np.float32), [3, 2])


@pytest.mark.parametrize("fn, args, expected", [
    (manip_tensor_unfold, (np.arange(8.0), 0, 3, 2),
     np.array([[0.0, 1, 2], [2, 3, 4], [4, 5, 6]])),
    (manip_tensor_unfold, (np.arange(6).reshape(2, 3), -1, 2, 1),
     np.array([[[0, 1], [1, 2]], [[3, 4], [4, 5]]])),
    (manip_as_strided, (np.arange(12.0).reshape(3, 4), [2, 2], [1, 2], 1),
     np.array([[1.0, 3], [2, 4]])),
    (manip_view_shape, (np.arange(6), [-1, 2]), np.arange(6).reshape(3, 2)),
    (manip_view_dtype, (np.array([1.0], np.float32), DataType.INT32),
     np.array([0x3F800000], np.int32)),
    (manip_view_dtype, (np.array([[1, 2]], np.int16), DataType.INT32),
     np.array([[0x00020001]], np.int32)),
])
def test_stride_kernels(fn, args, expected):
    assert_array(fn(CTX, *args), expected)


def test_stride_kernel_errors():
    with pytest.raises(PhiError, match="outside"):
        manip_as_strided(CTX, np.arange(4.0), [3], [2], 0)
    with pytest.raises(PhiError, match="divide"):
        manip_view_dtype(CTX, np.zeros((2, 3), np.int16), DataType.INT32)
    with pytest.raises(PhiError, match="size"):
        manip_tensor_unfold(CTX, np.arange(3.0), 0, 4, 1)


def test_temporal_shift_splits_channels_in_float():
    # static_cast<int>(10 * 0.3f) == 3 (0.3f * 10 = 3.0000001); in double it would be 2
    x = np.arange(20, dtype=np.float32).reshape(2, 10, 1, 1) + 1
    out = manip_temporal_shift(CTX, x, 2, np.float32(0.3), "NCHW")
    assert_array(out[0, :3], np.zeros((3, 1, 1), np.float32))  # no previous frame
    assert_array(out[1, :3], x[0, :3])
    assert_array(out[0, 3:6], x[1, 3:6])  # c2 = int(20 * 0.3f) = 6
    assert_array(out[1, 3:6], np.zeros((3, 1, 1), np.float32))
    assert_array(out[:, 6:], x[:, 6:])


def test_flip_duplicates_follow_std_unique():
    x = np.arange(6).reshape(2, 3)
    assert_array(manip_flip(CTX, x, [0, 1, 0]), x[::-1, ::-1])  # not adjacent: allowed, once
    with pytest.raises(PhiError, match="duplicates"):
        manip_flip(CTX, x, [1, 1])
    assert_array(reverse(CTX, x, IntArray([1, -1])), x[:, ::-1])


def test_fill_diagonal_walk():
    # the flat walk of FillDiagonalKernel: stride 4 on a 7x3 matrix, wrap repeats after row 3
    out = fill_diagonal(CTX, np.zeros((7, 3), np.float32), 1.0, 0, True)
    assert [tuple(p) for p in np.argwhere(out)] == [(0, 0), (1, 1), (2, 2), (4, 0), (5, 1),
                                                    (6, 2)]
    out = fill_diagonal(CTX, np.zeros((3, 3), np.int64), 9.9, 1, False)
    assert_array(out, np.array([[0, 9, 0], [0, 0, 9], [0, 0, 0]], np.int64))


def test_roll_and_logspace():
    x = np.arange(6).reshape(2, 3)
    assert_array(roll(CTX, x, IntArray([-7]), []), np.roll(x.ravel(), -7).reshape(2, 3))
    with pytest.raises(PhiError, match="shifts.size"):
        roll(CTX, x, IntArray([1, 2]), [])
    one = np.array([1.0], np.float32)
    out = logspace(CTX, np.array([0.0], np.float32), np.array([2.0], np.float32),
                         np.array([3], np.int32), np.array([10.0], np.float32), DataType.INT64)
    assert_array(out, np.array([1, 10, 100], np.int64))
    with pytest.raises(PhiError, match="larger than 0"):
        logspace(CTX, one, one, np.array([0], np.int32), one, F32)


def test_eye_scalar_attrs_and_fill_nan():
    assert_array(eye(CTX, Scalar(2), Scalar(-1), DataType.INT32),
                 np.eye(2, dtype=np.int32))
    with pytest.raises(PhiError, match="NaN"):
        fill(CTX, np.zeros(2, np.float32), Scalar(float("nan")))


@pytest.mark.parametrize("fn, args, dims", [
    (im.crop_infer_meta, (meta([4, 5]), IntArray([2, -1]), IntArray([1, 2])), (2, 3)),
    (im.crop_infer_meta, (meta([-1, 5]), IntArray([2, -1]), IntArray([1, 2])), (2, 3)),
    (im.crop_infer_meta, (meta([-1, 5]), IntArray([-1, 3]), IntArray([0, 2])), (-1, 3)),
    (im.diag_embed_infer_meta, (meta([2, 3]), -1, 0, 2), (4, 2, 4)),
    (im.diag_infer_meta, (meta([3, 4]), 2, 0.0), (2,)),
    (im.diag_infer_meta, (meta([]), -1, 0.0), (2, 2)),
    (im.diagonal_infer_meta, (meta([2, 3, 4]), 5, 0, 1), (4, 0)),
    (im.broadcast_tensors_infer_meta, ([meta([2, 1, 3]), meta([-1, 1])],), (2, -1, 3)),
    (im.pad_infer_meta, (meta([-1, 3]), [1, 0, 0, 2], 0.0), (-1, 5)),
    (im.pixel_unshuffle_infer_meta, (meta([1, 6, 4, 2]), 2, "NHWC"), (1, 3, 2, 8)),
    (im.tril_indices_infer_meta, (4, 3, 0, DataType.INT64), (2, 9)),
    (im.triu_indices_infer_meta, (4, 2, -2, DataType.INT32), (2, 7)),
    (im.view_dtype_infer_meta, (meta([2, 2]), DataType.UINT8), (2, 8)),
    (im.tensor_unfold_infer_meta, (meta([2, 5]), -1, 2, 2), (2, 2, 2)),
])
def test_infer_meta_dims(fn, args, dims):
    outs = [MetaTensor(), MetaTensor()] if fn is im.broadcast_tensors_infer_meta else \
        MetaTensor()
    fn(*args, outs)
    got = outs[0] if isinstance(outs, list) else outs
    assert tuple(got.dims) == dims


def test_compile_time_tensor_attrs_leave_dims_unknown():
    out = MetaTensor()
    im.crop_infer_meta(meta([4, 5]), IntArray([0, 0], from_tensor=True), IntArray([1, 1]), out,
                       config=COMPILE)
    assert tuple(out.dims) == (-1, -1)
    out = MetaTensor()
    im.eye_infer_meta(Scalar(3), Scalar(4), F32, out)
    assert tuple(out.dims) == (3, 4)


@pytest.mark.parametrize("fn, args, match", [
    (im.crop_infer_meta, (meta([4, 5]), IntArray([2]), IntArray([0, 0])), "equal to the number"),
    (im.diag_embed_infer_meta, (meta([3]), 0, 0, -2), "same dimension"),
    (im.diag_infer_meta, (meta([2, 2, 2]), 0, 0.0), "either 1 or 2"),
    (im.pad_infer_meta, (meta([2]), [1], 0.0), "2 \\* size"),
    (im.channel_shuffle_infer_meta, (meta([1, 6, 2, 2]), 4, "NCHW"), "divide"),
    (im.temporal_shift_infer_meta, (meta([3, 4, 1, 1]), 2, 0.25, "NCHW"), "divided exactly"),
    (im.full_batch_size_like_infer_meta, (meta([2]), [-1], 0.0, F32, 1, 0), "out of range"),
    (im.transfer_layout_infer_meta, (meta([1, 2, 3, 4]), 2, 2), "same layout"),
])
def test_infer_meta_errors(fn, args, match):
    with pytest.raises(PhiError, match=match):
        fn(*args, MetaTensor())
