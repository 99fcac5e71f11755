"""create_infer_meta (full)."""

from __future__ import annotations

import pytest

from phi.common import DataLayout, DataType, IntArray
from phi.core.errors import InvalidArgument
from phi.core.tensor import MetaTensor
from phi.infermeta import create_infer_meta


@pytest.mark.parametrize(
    ("shape", "dtype", "dims"),
    [
        (IntArray([2, 3]), DataType.INT64, (2, 3)),
        (IntArray([]), DataType.FLOAT16, ()),
        ([0, 4], DataType.BOOL, (0, 4)),
        (IntArray([-1, 4], from_tensor=True), DataType.FLOAT32, (-1, 4)),  # unknown size
    ],
)
def test_create(shape, dtype, dims):
    out = MetaTensor(layout=DataLayout.NHWC)
    create_infer_meta(shape, dtype, out)
    assert (out.dims, out.dtype, out.layout) == (dims, dtype, DataLayout.NCHW)


def test_create_refuses_negative_sizes():
    with pytest.raises(InvalidArgument, match=r"shape = \[2, -3\], shape\[1\] = -3"):
        create_infer_meta(IntArray([2, -3]), DataType.FLOAT32, MetaTensor())
