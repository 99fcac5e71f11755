"""Compare, logical and increment kernels: Paddle's float equality within 1e-8, NaN, broadcasting,
the legacy ``_raw`` axis, 0-D and size-0 tensors (values checked against Paddle 2.6.2 by hand)."""

from __future__ import annotations

import numpy as np
import pytest

from phi.backends import get_context
from phi.common import CPUPlace
from phi.core.errors import InvalidArgument
from phi.core.tensor import MetaTensor
from phi.infermeta import compare_raw_infer_meta, increment_infer_meta
from phi.kernels import compare
from tests.phi.kernels.conftest import assert_array

NAN, INF = np.nan, np.inf


def a(values, dtype):
    return np.array(values, dtype=dtype)


B = np.bool_
CASES = [
    # EqualFunctor: |a - b| < 1e-8 for float/double; infinities only equal themselves; NaN never
    ("equal_f32_eps", "equal", (a([1e-9, 0.0, NAN, INF, 1.0, 3e38, -INF], np.float32),
                                a([0.0, 5e-9, NAN, INF, 1 + 1e-7, -3e38, -INF], np.float32)),
     a([1, 1, 0, 1, 0, 0, 1], B)),
    ("equal_f64_eps", "equal", (a([1.0, 1.0], np.float64), a([1 + 1e-9, 1 + 1e-7], np.float64)),
     a([1, 0], B)),
    ("not_equal_nan", "not_equal", (a([NAN, 1.0, 2.0], np.float32), a([NAN, 1.0, 3.0],
                                                                      np.float32)),
     a([1, 0, 1], B)),
    ("equal_i64_bcast", "equal", (a([[1, 2], [3, 4]], np.int64), a([2], np.int64)),
     a([[0, 1], [0, 0]], B)),
    ("less_than_nan", "less_than", (a([NAN, 1.0, 1.0], np.float32), a([1.0, NAN, 2.0],
                                                                      np.float32)),
     a([0, 0, 1], B)),
    ("greater_equal_nan", "greater_equal", (a([NAN, 1.0, 2.0], np.float64),
                                            a([1.0, NAN, 2.0], np.float64)), a([0, 0, 1], B)),
    ("less_equal_0d", "less_equal", (a(3, np.int32), a(3, np.int32)), a(True, B)),
    ("greater_than_size0", "greater_than", (np.zeros((0, 3), np.float32),
                                            np.zeros((3,), np.float32)), np.zeros((0, 3), B)),
    ("greater_than_bool", "greater_than", (a([True, False], B), a([False, False], B)),
     a([1, 0], B)),
    # logical ops read any non-zero (NaN included) as true
    ("logical_and_f32", "logical_and", (a([NAN, 0.0, -0.0, 2.0], np.float32),
                                        a([1.0, 1.0, 1.0, 1.0], np.float32)), a([1, 0, 0, 1], B)),
    ("logical_or_bcast", "logical_or", (a([[0, 1], [0, 0]], np.int32), a([0, 0], np.int32)),
     a([[0, 1], [0, 0]], B)),
    ("logical_xor_i64", "logical_xor", (a([3, 0, 5], np.int64), a([1, 0, 0], np.int64)),
     a([0, 0, 1], B)),
    ("logical_not_f32", "logical_not", (a([NAN, 0.0, -0.0, 2.0], np.float32),),
     a([0, 1, 1, 0], B)),
    ("logical_not_0d", "logical_not", (a(False, B),), a(True, B)),
    # increment: x + static_cast<T>(value): an int x adds the truncated value
    ("increment_f32", "increment", (a([2.5], np.float32), 1.7), a([4.2], np.float32)),
    ("increment_i64", "increment", (a([2], np.int64), 1.7), a([3], np.int64)),
    ("increment_i32_neg", "increment", (a([2], np.int32), -1.7), a([1], np.int32)),
    ("relu6", "relu6", (a([NAN, -1.0, 3.0, 7.0, INF], np.float32),),
     a([NAN, 0.0, 3.0, 6.0, 6.0], np.float32)),
]


@pytest.mark.parametrize(("op", "args", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_values(run_op, op, args, expected):
    assert_array(run_op(op, *args), expected, rtol=1e-6)


def test_raw_compare_aligns_at_axis():
    ctx = get_context(CPUPlace())
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    # y aligned to dim 0 (numpy would align [2] to the last dim and fail)
    out = compare.less_than_raw(ctx, x, a([1.0, 4.0], np.float32), 0)
    assert_array(out, a([[1, 0, 0], [1, 0, 0]], B))
    assert_array(compare.equal_raw(ctx, x, a([0.0, 4.0], np.float32), 0),
                 a([[1, 0, 0], [0, 1, 0]], B))


def test_compare_raw_infer_meta_ignores_axis():
    # Paddle 2.6.2's CompareRawInferMeta aligns trailing dims whatever `axis` says
    out = MetaTensor()
    compare_raw_infer_meta(MetaTensor((2, 3, 4)), MetaTensor((4,)), 1, out)
    assert out.dims == (2, 3, 4) and str(out.dtype) == "bool"
    with pytest.raises(InvalidArgument, match="Broadcast dimension mismatch"):
        compare_raw_infer_meta(MetaTensor((2, 3, 4)), MetaTensor((3,)), 1, MetaTensor())


def test_increment_needs_one_element():
    with pytest.raises(InvalidArgument, match="should be 1"):
        increment_infer_meta(MetaTensor((2,)), 1.0, MetaTensor())
    out = MetaTensor()
    increment_infer_meta(MetaTensor((-1,)), 1.0, out)  # compile time: unknown size accepted
    assert out.dims == (-1,)
