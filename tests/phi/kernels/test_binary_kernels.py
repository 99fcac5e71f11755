"""The binary / scan kernels and their InferMeta (floor_divide, remainder, heaviside, histogram,
bincount ...): hand-worked values and compile-time (-1) dims.

Paddle's own outputs for these ops are the fixtures tests/fixtures/single_ops/*.json
(tools/fixtures/cases/binary.py), run by tests/fluid_compat/operators/test_corpus_cases.py; this
file covers what those cannot: unknown dims and the typed errors of bad shapes / attributes.
"""

from __future__ import annotations

import numpy as np
import pytest

from phi.common import DataType
from phi.common.layout import DataLayout
from phi.core.errors import InvalidArgument, PhiError
from phi.core.tensor import MetaTensor
import phi.infermeta as im
from tests.phi.kernels.conftest import assert_array

F32, I64 = DataType.FLOAT32, DataType.INT64


def meta(dims, dtype=F32):
    return MetaTensor(tuple(dims), dtype, DataLayout.NCHW)


def test_floor_divide_and_remainder_follow_python_signs(run_op):
    x = np.array([7, -7, 7, -7], np.int32)
    y = np.array([3, 3, -3, -3], np.int32)
    assert_array(run_op("floor_divide", x, y), np.array([2, -3, -3, 2], np.int32))
    assert_array(run_op("remainder", x, y), np.array([1, 2, -2, -1], np.int32))
    with pytest.raises(InvalidArgument, match="division by zero"):
        run_op("floor_divide", x, np.zeros(4, np.int32))


def test_remainder_keeps_negative_zero(run_op):
    out = run_op("remainder", np.array([-0.0, 4.0]), np.array([2.0, -2.0]))
    assert np.signbit(out[0]) and out[1] == 0.0


def test_heaviside_nan_is_zero(run_op):
    assert_array(run_op("heaviside", np.array([np.nan, 0.0, -1.0]), np.array([5.0, 5.0, 5.0])),
                 np.array([0.0, 5.0, 0.0]))


def test_histogram_and_bincount(run_op):
    # [0, 4] in 4 bins of width 1; 4 lands in the last bin, 5 and -1 are dropped
    assert_array(run_op("histogram", np.array([0.0, 0.5, 1.0, 4.0, 5.0, -1.0]), 4, 0, 4),
                 np.array([2, 1, 0, 1], np.int64))
    assert_array(run_op("bincount", np.array([1, 1, 3], np.int64), None, 2),
                 np.array([0, 2, 0, 1], np.int64))


@pytest.mark.parametrize(("fn", "args", "dims"), [
    (im.dot_infer_meta, ((-1, 4), (-1, 4)), (-1,)),
    (im.mv_infer_meta, ((-1, 3), (3,)), (-1,)),
    (im.bmm_infer_meta, ((-1, 2, 3), (-1, 3, 5)), (-1, 2, 5)),
    (im.kron_infer_meta, ((2, -1), (3,)), (2, -1)),
    (im.lerp_infer_meta, ((-1, 3), (3,), (1,)), (-1, 3)),
    (im.atan2_infer_meta, ((-1, 3), (2, 3)), (-1, 3)),
])
def test_unknown_dims(fn, args, dims):
    out = MetaTensor()
    fn(*[meta(a) for a in args], out)
    assert out.dims == dims


def test_attribute_infer_meta():
    out = MetaTensor()
    im.trace_infer_meta(meta((2, -1, 4)), 0, -1, 0, out)
    assert out.dims == (-1,)
    im.cum_infer_meta(meta((2, -1)), -1, True, False, False, out)
    assert out.dims == (-1,)
    out, idx = MetaTensor(), MetaTensor()
    im.cum_with_indices_infer_meta(meta((2, 3)), 1, DataType.INT32, out, idx)
    assert idx.dtype == DataType.INT32 and idx.dims == (2, 3)
    im.histogram_infer_meta(meta((-1,), I64), 7, 0, 0, out)
    assert out.dims == (7,) and out.dtype == I64


@pytest.mark.parametrize(("fn", "args"), [
    (im.dot_infer_meta, ((2, 3), (3, 2))),
    (im.mv_infer_meta, ((2, 3), (4,))),
    (im.bmm_infer_meta, ((2, 2, 3), (3, 3, 2))),
    (im.atan2_infer_meta, ((2, 3), (3,))),
    (im.compare_all_infer_meta, ((3,), (1, 3))),
    (im.value_compare_infer_meta, ((2, 3), (3,))),
])
def test_bad_shapes_raise_typed_errors(fn, args):
    with pytest.raises(PhiError):
        fn(*[meta(a) for a in args], MetaTensor())


def test_bad_attributes_raise_typed_errors():
    with pytest.raises(InvalidArgument):
        im.trace_infer_meta(meta((3, 3)), 0, 1, -1, MetaTensor())
    with pytest.raises(InvalidArgument):
        im.cross_infer_meta(meta((2, 4)), meta((2, 4)), 1, MetaTensor())
    with pytest.raises(InvalidArgument):
        im.histogram_infer_meta(meta((3,)), 0, 0, 0, MetaTensor())
