"""Unary InferMeta functions: dims/dtype/layout rules, unknown (-1) dims, compile time, errors."""

from __future__ import annotations

import pytest

from phi.common import DataLayout, DataType, IntArray, Scalar
from phi.core.errors import InvalidArgument
from phi.core.tensor import MetaTensor
from phi.infermeta import (
    MetaConfig,
    cast_infer_meta,
    create_like_infer_meta,
    reduce_int_array_axis_infer_meta,
    reshape_infer_meta,
    softmax_infer_meta,
    split_infer_meta,
    sum_infer_meta,
    transpose_infer_meta,
    unchanged_infer_meta,
)
from tests.phi.infermeta.conftest import meta

COMPILE_TIME = MetaConfig(is_runtime=False)
F32, I64 = DataType.FLOAT32, DataType.INT64


def test_unchanged_copies_dims_dtype_layout():
    o = MetaTensor()
    unchanged_infer_meta(meta((-1, 3), DataType.FLOAT16, DataLayout.NHWC), o)
    assert (o.dims, o.dtype, o.layout) == ((-1, 3), DataType.FLOAT16, DataLayout.NHWC)


def test_cast():
    o = MetaTensor()
    cast_infer_meta(meta((2, 0), F32, DataLayout.NHWC), DataType.BFLOAT16, o)
    assert (o.dims, o.dtype, o.layout) == ((2, 0), DataType.BFLOAT16, DataLayout.NHWC)


@pytest.mark.parametrize(("dtype", "out"), [(DataType.UNDEFINED, F32), (DataType.INT32,
                                                                       DataType.INT32)])
def test_create_like(dtype, out):
    o = MetaTensor()
    create_like_infer_meta(meta((4,), F32, DataLayout.NHWC), dtype, o)
    assert (o.dims, o.dtype, o.layout) == ((4,), out, DataLayout.NHWC)


# -- reshape ---------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("x", "shape", "out"),
    [
        ((2, 3, 4), [6, 4], (6, 4)),
        ((2, 3, 4), [0, -1], (2, 12)),
        ((2, 3, 4), [-1], (24,)),
        ((1,), [], ()),
        ((), [1, 1], (1, 1)),
        ((0, 3), [-1, 3], (0, 3)),
        ((0, 3), [3, -1], (3, 0)),
        # unknown input dims: 0 copies them, a -1 stays unknown, known sizes are taken as given
        ((-1, 4), [0, 2, 2], (-1, 2, 2)),
        ((-1, 4), [-1, 2], (-1, 2)),
        ((-1, 4), [8, 3], (8, 3)),
        ((2, 4), [0, -1, 0], None),  # 0 at index 2 is beyond x's rank: error below
    ],
)
def test_reshape(x, shape, out):
    o = MetaTensor()
    if out is None:
        with pytest.raises(InvalidArgument, match="The index of 0 in `shape`"):
            reshape_infer_meta(meta(x), IntArray(shape), o)
        return
    reshape_infer_meta(meta(x, I64, DataLayout.NHWC), IntArray(shape), o)
    assert (o.dims, o.dtype, o.layout) == (out, I64, DataLayout.NHWC)


@pytest.mark.parametrize(
    ("x", "shape", "match"),
    [
        ((2, 3), [-1, -1], (r"Only one dimension value of 'shape' in ReshapeOp can be -1. But "
                           r"received shape = \[-1, -1\], shape\[1\] is also -1")),
        ((2, 3), [4], (r"X's shape = \[2, 3\], X's size = 6, 'shape' is \[4\], the capacity of "
                      "'shape' is 4")),
        ((2, 3), [-1, 4], "divisible by known capacity of 'shape'"),
        ((2, 3), [-3, 2], r"must not be negative .* shape\[0\] = -3"),
        ((3, 0), [-1, 0], "divisible by known capacity"),  # ? * 0 = 0: ambiguous
        ((2, 3), [], "the capacity of 'shape' is 1"),
    ],
)
def test_reshape_errors(x, shape, match):
    with pytest.raises(InvalidArgument, match=match):
        reshape_infer_meta(meta(x), IntArray(shape), MetaTensor())


def test_reshape_shape_tensor_at_compile_time_is_taken_as_is():
    o = MetaTensor()
    reshape_infer_meta(meta((2, 3)), IntArray([-1, 7], from_tensor=True), o, config=COMPILE_TIME)
    assert o.dims == (-1, 7)


# -- reductions ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("x", "axis", "keep", "out"),
    [
        ((2, 3, 4), [1], False, (2, 4)),
        ((2, 3, 4), [1], True, (2, 1, 4)),
        ((2, 3, 4), [-1, 0], False, (3,)),
        ((2, 3, 4), [2, 2, -1], False, (2, 3)),  # duplicates are one axis
        ((2, 3, 4), [], False, ()),  # empty axis: everything, 0-D
        ((2, 3, 4), [], True, (1, 1, 1)),
        ((2, 3, 4), [0, 1, 2], False, ()),
        ((), [], False, ()),
        ((), [-1], True, ()),
        ((-1, 3), [1], False, (-1,)),
        ((-1, 3), [0], True, (1, 3)),
        ((0, 3), [0], False, (3,)),
    ],
)
def test_reduce(x, axis, keep, out):
    o = MetaTensor()
    reduce_int_array_axis_infer_meta(meta(x, DataType.INT32, DataLayout.NHWC), IntArray(axis),
                                     keep, o)
    assert (o.dims, o.dtype, o.layout) == (out, DataType.INT32, DataLayout.NHWC)


@pytest.mark.parametrize(
    ("x", "axis", "match"),
    [
        ((2, 3), [2], (r"The reduce dim index 0 should be in the range \[ -dimension\(X\), "
                      r"dimension\(X\) \) which dimesion = 2. But received dim index = 2")),
        ((2, 3), [0, -3], "reduce dim index 1 .* received dim index = -3"),
        ((), [1], "When input 0D Tensor, the axis can only be -1, 0, None or"),
    ],
)
def test_reduce_errors(x, axis, match):
    with pytest.raises(InvalidArgument, match=match):
        reduce_int_array_axis_infer_meta(meta(x), IntArray(axis), False, MetaTensor())


@pytest.mark.parametrize(
    ("axis", "keep", "out"),
    [([1], False, (-1,)), ([0, 1], True, (-1, -1)), ([0, 1, 2], False, (-1,))],
)
def test_reduce_axis_tensor_at_compile_time(axis, keep, out):
    o = MetaTensor()
    reduce_int_array_axis_infer_meta(meta((2, 3)), IntArray(axis, from_tensor=True), keep, o,
                                     config=COMPILE_TIME)
    assert o.dims == out


@pytest.mark.parametrize(
    ("x_dtype", "dtype", "out"),
    [
        (DataType.BOOL, DataType.UNDEFINED, I64),
        (DataType.INT32, DataType.UNDEFINED, I64),
        (DataType.INT8, DataType.UNDEFINED, DataType.INT8),
        (DataType.INT64, DataType.UNDEFINED, I64),
        (DataType.FLOAT16, DataType.UNDEFINED, DataType.FLOAT16),
        (DataType.BOOL, DataType.BOOL, DataType.BOOL),
        (DataType.INT32, DataType.FLOAT64, DataType.FLOAT64),
    ],
)
def test_sum_dtype(x_dtype, dtype, out):
    o = MetaTensor()
    sum_infer_meta(meta((2, 3), x_dtype), IntArray([0]), dtype, False, o)
    assert (o.dims, o.dtype) == ((3,), out)


def test_sum_dims_follow_reduce_rules():
    o = MetaTensor()
    sum_infer_meta(meta((2, -1, 4), F32, DataLayout.NHWC), IntArray([]), DataType.UNDEFINED,
                   True, o)
    assert (o.dims, o.layout) == ((1, 1, 1), DataLayout.NHWC)
    with pytest.raises(InvalidArgument, match="reduce dim index"):
        sum_infer_meta(meta((2,)), IntArray([1]), DataType.UNDEFINED, False, MetaTensor())


# -- softmax ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("x", "axis"), [((2, 3), -2), ((2, 3), 1), ((), 0), ((), -1),
                                         ((-1, 5), -1)])
def test_softmax(x, axis):
    o = MetaTensor()
    softmax_infer_meta(meta(x, DataType.FLOAT64), axis, o)
    assert (o.dims, o.dtype) == (x, DataType.FLOAT64)


@pytest.mark.parametrize(
    ("x", "axis", "match"),
    [
        ((2, 3), 2, r"expected to be in range of \[-2, 2\), but got 2"),
        ((2, 3), -3, r"expected to be in range of \[-2, 2\), but got -3"),
        ((), 1, r"in range \[-1, 0\] when input is 0D Tensor, but got 1"),
    ],
)
def test_softmax_errors(x, axis, match):
    with pytest.raises(InvalidArgument, match=match):
        softmax_infer_meta(meta(x), axis, MetaTensor())


# -- split -----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("x", "sections", "axis", "outs"),
    [
        ((4, 6), [2, 4], 1, [(4, 2), (4, 4)]),
        ((4, 6), [1, -1, 2], -1, [(4, 1), (4, 3), (4, 2)]),
        ((4, 6), [4], 0, [(4, 6)]),
        ((4, 6), [0, 4], 0, [(0, 6), (4, 6)]),
        ((0, 6), [1, 2], 0, [(0, 6), (0, 6)]),  # split dim 0: Paddle skips the checks
        # unknown split dim: known sections are used, -1 stays unknown
        ((-1, 6), [2, -1], 0, [(2, 6), (-1, 6)]),
        ((3, -1), [1, 2], 0, [(1, -1), (2, -1)]),
    ],
)
def test_split(x, sections, axis, outs):
    metas = [MetaTensor() for _ in sections]
    split_infer_meta(meta(x, DataType.INT8, DataLayout.NHWC), IntArray(sections), Scalar(axis),
                     metas)
    assert [m.dims for m in metas] == outs
    assert {(m.dtype, m.layout) for m in metas} == {(DataType.INT8, DataLayout.NHWC)}


@pytest.mark.parametrize(
    ("sections", "axis"),
    [(IntArray([1, 1], from_tensor=True), Scalar(0)),
     (IntArray([1, 1]), Scalar(0, from_tensor=True))],
)
def test_split_tensor_attrs_at_compile_time(sections, axis):
    metas = [MetaTensor(), MetaTensor()]
    split_infer_meta(meta((2, 3)), sections, axis, metas, config=COMPILE_TIME)
    assert [m.dims for m in metas] == [(-1, -1), (-1, -1)]


@pytest.mark.parametrize(
    ("sections", "axis", "match"),
    [
        ([2, 2], 1, (r"Sum of Attr\(num_or_sections\) must be equal to the input's size along "
                    r"the split dimension. But received Attr\(num_or_sections\) = \[2, 2\], "
                    r"input\(X\)'s shape = \[4, 6\], Attr\(dim\) = 1")),
        ([-1, -1], 1, r"Only one dimension value of Attr\(num_or_sections\)"),
        ([6, -1], 1, "other than unknown section must be less than"),
        ([2, 4], 2, r"The axis is expected to be in range of \[-2, 2\), but got 2"),
        ([2, 4], 1.0, r"split\(\): argument \(position 3\) must be int, but got float"),
        ([7, -3], 1, r"sections\[1\] = -3"),
    ],
)
def test_split_errors(sections, axis, match):
    metas = [MetaTensor() for _ in sections]
    with pytest.raises(InvalidArgument, match=match):
        split_infer_meta(meta((4, 6)), IntArray(sections), Scalar(axis), metas)


def test_split_needs_one_meta_per_section():
    with pytest.raises(InvalidArgument, match="expects 2 output metas"):
        split_infer_meta(meta((4, 6)), IntArray([2, 4]), Scalar(1), [MetaTensor()])


# -- transpose -------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("x", "perm", "out"),
    [
        ((2, 3, 4), [2, 0, 1], (4, 2, 3)),
        ((2, 3, 4), [-1, -3, 1], (4, 2, 3)),
        ((), [], ()),
        ((-1, 5), [1, 0], (5, -1)),
    ],
)
def test_transpose(x, perm, out):
    o = MetaTensor()
    transpose_infer_meta(meta(x, DataType.BOOL, DataLayout.NHWC), perm, o)
    assert (o.dims, o.dtype, o.layout) == (out, DataType.BOOL, DataLayout.NHWC)


@pytest.mark.parametrize(
    ("perm", "match"),
    [
        ([0, 1], r"dimension is 3, perm's size is 2"),
        ([0, 1, 3], r"The perm index 2 should be in the range .* received perm index = 3"),
        ([0, 2, 2], r"perm\[2\] is 2 appear not only once"),
        ([0, 1, -3], r"perm\[2\] is -3 appear not only once"),
    ],
)
def test_transpose_errors(perm, match):
    with pytest.raises(InvalidArgument, match=match):
        transpose_infer_meta(meta((2, 3, 4)), perm, MetaTensor())
