"""elementwise_infer_meta and matmul_infer_meta, with unknown (-1) dims and errors."""

from __future__ import annotations

import pytest

from phi.common import DataLayout, DataType
from phi.core.errors import InvalidArgument
from phi.core.tensor import MetaTensor
from phi.infermeta import elementwise_infer_meta, matmul_infer_meta
from tests.phi.infermeta.conftest import meta


@pytest.mark.parametrize(
    ("x", "y", "out"),
    [
        ((2, 3), (2, 3), (2, 3)),
        ((2, 3, 4), (4,), (2, 3, 4)),
        ((2, 1, 4), (3, 1), (2, 3, 4)),
        ((), (3,), (3,)),
        ((3,), (), (3,)),
        ((), (), ()),
        ((0, 3), (3,), (0, 3)),
        ((0, 3), (1, 3), (0, 3)),
        ((0,), (0,), (0,)),
        ((5, 0), (1, 1), (5, 0)),
        # -1 is unknown (compile time): with a size > 1 it takes that size, with 1 or -1 it stays
        # unknown, with 0 it is 0; equal dims are copied as they are
        ((-1, 3), (4, 3), (4, 3)),
        ((-1, 3), (1, 3), (-1, 3)),
        ((-1, 3), (-1, 3), (-1, 3)),
        ((-1, 3), (3,), (-1, 3)),
        ((2, -1), (-1,), (2, -1)),
        ((-1,), (0,), (0,)),
        ((1,), (-1,), (-1,)),
    ],
)
def test_elementwise(x, y, out):
    o = MetaTensor()
    elementwise_infer_meta(meta(x, DataType.INT32, DataLayout.NHWC), meta(y, DataType.FLOAT64), o)
    assert (o.dims, o.dtype, o.layout) == (out, DataType.INT32, DataLayout.NHWC)


@pytest.mark.parametrize(
    ("x", "y", "message"),
    [
        ((2, 3), (4,), (r"shape of X = \[2, 3\] and the shape of Y = \[4\]. Received \[3\] in X "
                       r"is not equal to \[4\] in Y at i:1")),
        ((2, 3), (3, 3), r"Received \[2\] in X is not equal to \[3\] in Y at i:0"),
        ((0,), (3,), r"Received \[0\] in X is not equal to \[3\] in Y"),
    ],
)
def test_elementwise_mismatch(x, y, message):
    with pytest.raises(InvalidArgument, match="Broadcast dimension mismatch. .*" + message):
        elementwise_infer_meta(meta(x), meta(y), MetaTensor())


@pytest.mark.parametrize(
    ("x", "y", "tx", "ty", "out"),
    [
        ((3, 4), (4, 5), False, False, (3, 5)),
        ((4, 3), (4, 5), True, False, (3, 5)),
        ((3, 4), (5, 4), False, True, (3, 5)),
        ((4,), (4,), False, False, ()),
        ((4,), (4, 5), True, False, (5,)),  # a vector's transpose flag is ignored
        ((3, 4), (4,), False, True, (3,)),
        ((2, 1, 3, 4), (3, 4, 5), False, False, (2, 3, 3, 5)),  # batch dims broadcast
        ((7, 3, 4), (4, 5), False, False, (7, 3, 5)),
        ((4,), (2, 4, 5), False, False, (2, 5)),
        ((0, 3, 4), (1, 4, 2), False, False, (0, 3, 2)),
        # unknown dims
        ((-1, 4), (4, 5), False, False, (-1, 5)),
        ((3, -1), (4, 5), False, False, (3, 5)),
        ((-1, 3, 4), (2, 4, 5), False, False, (2, 3, 5)),
        ((-1, 3, 4), (1, 4, 5), False, False, (-1, 3, 5)),
    ],
)
def test_matmul(x, y, tx, ty, out):
    o = MetaTensor()
    matmul_infer_meta(meta(x, DataType.FLOAT64), meta(y, DataType.FLOAT64), tx, ty, o)
    assert (o.dims, o.dtype) == (out, DataType.FLOAT64)


def test_matmul_int8_gives_int32():
    o = MetaTensor()
    matmul_infer_meta(meta((2, 2), DataType.INT8), meta((2, 2), DataType.INT8), False, False, o)
    assert o.dtype == DataType.INT32


@pytest.mark.parametrize(
    ("x", "y", "tx", "match"),
    [
        ((3, 4), (5, 6), False, r"contracted dimension of x \(4"),
        ((3, 4), (3, 6), True, None),
        ((2, 3, 4), (3, 4, 5), False, "cannot be broadcast together: 2 vs 3"),
        ((), (4,), False, r"The Input\(x\) dims size must be greater than 0"),
        ((4,), (), False, r"The Input\(y\) dims size must be greater than 0"),
    ],
)
def test_matmul_errors(x, y, tx, match):
    if match is None:  # a valid transpose, for contrast
        matmul_infer_meta(meta(x), meta(y), tx, False, MetaTensor())
        return
    with pytest.raises(InvalidArgument, match=match):
        matmul_infer_meta(meta(x), meta(y), tx, False, MetaTensor())
