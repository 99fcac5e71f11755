"""concat_infer_meta, with unknown (-1) dims, a compile-time axis tensor and errors."""

from __future__ import annotations

import pytest

from phi.common import DataLayout, DataType, Scalar
from phi.core.errors import InvalidArgument
from phi.core.tensor import MetaTensor
from phi.infermeta import MetaConfig, concat_infer_meta
from tests.phi.infermeta.conftest import meta


@pytest.mark.parametrize(
    ("dims", "axis", "out"),
    [
        ([(2, 3), (2, 1), (2, 2)], -1, (2, 6)),
        ([(2, 3), (4, 3)], 0, (6, 3)),
        ([(0, 3), (2, 3)], 0, (2, 3)),
        ([(5,)], 0, (5,)),
        ([(2, -1), (2, 3)], 1, (2, -1)),  # an unknown size on the axis makes it unknown
        ([(-1, 3), (2, 3)], 1, (2, 6)),  # elsewhere it is filled from a known input
        ([(-1, 3), (-1, 3)], 1, (-1, 6)),
    ],
)
def test_concat(dims, axis, out):
    o = MetaTensor()
    xs = [meta(d, DataType.INT16, DataLayout.NHWC) for d in dims]
    concat_infer_meta(xs, Scalar(axis), o)
    assert (o.dims, o.dtype, o.layout) == (out, DataType.INT16, DataLayout.NHWC)


def test_concat_axis_from_tensor_at_compile_time():
    o = MetaTensor()
    concat_infer_meta([meta((2, 3)), meta((2, 3))], Scalar(0, from_tensor=True), o,
                      config=MetaConfig(is_runtime=False))
    assert o.dims == (-1, -1)


@pytest.mark.parametrize(
    ("dims", "axis", "match"),
    [
        ([], 0, "The size of input meta vector should be greater than 0"),
        ([(2, 3), (3, 3)], 1, (r"The 0-th dimension of input\[0\] and input\[1\] is expected to "
                              r"be equal. But received input\[0\]'s shape = \[2, 3\]")),
        ([(2, 3), (2, 3, 1)], 0, (r"The shape of input\[0\] and input\[1\] is expected to be "
                                 "equal")),
        ([(2, 3), (2, 3)], 2, r"The axis is expected to be in range of \[-2, 2\), but got 2"),
        ([(2, 3), (2, 3)], -3, r"in range of \[-2, 2\), but got -3"),
        ([(), ()], 0, "0-D"),
    ],
)
def test_concat_errors(dims, axis, match):
    with pytest.raises(InvalidArgument, match=match):
        concat_infer_meta([meta(d) for d in dims], Scalar(axis), MetaTensor())
