"""arange_tensor, linspace, unique: sizes decided by input values (InferMeta says -1, as in
Paddle).  Paddle's recorded corpus cases run through the phi API here; the legacy ops need the
same -1 rule in fluid_compat's dispatch."""

from __future__ import annotations

import numpy as np
import pytest

from phi.backends import get_context
from phi.common import CPUPlace, DataType
from phi.core.errors import PhiError
from phi.kernels.arange_tensor import arange_tensor
from phi.kernels.unique import unique, unique_raw
from tests.fluid_compat.operators.corpus_cases import load_case
from tests.phi.kernels.conftest import assert_array


def _case(name):
    case, arrays = load_case(name)
    ins = {slot: [arrays[i["npz_key"]] for i in items] for slot, items in case["inputs"].items()}
    outs = {slot: [arrays[i["npz_key"]] for i in items]
            for slot, items in case["outputs"].items() if items and "npz_key" in items[0]}
    return case, ins, outs


def test_range_corpus_case():
    _, ins, outs = _case("range_f32")
    # arange_tensor has no API function (static_ops.yaml): the kernel is called directly
    got = arange_tensor(get_context(CPUPlace()), *(ins[s][0] for s in ("Start", "End", "Step")))
    assert_array(got, outs["Out"][0], rtol=1e-6)


def test_linspace_corpus_case(run_op):
    _, ins, outs = _case("linspace")
    got = run_op("linspace", ins["Start"][0], ins["Stop"][0], ins["Num"][0], "float32")
    assert_array(got, outs["Out"][0], rtol=1e-6)


def test_unique_corpus_case(run_op):
    _, ins, outs = _case("unique_sorted")
    got = run_op("unique", ins["X"][0], True, True, True, [], "int64")
    for g, slot in zip(got, ("Out", "Indices", "Index", "Counts"), strict=True):
        assert_array(g, outs[slot][0])


def test_linspace_halves_and_int(run_op):
    one = np.array([1], np.int32)
    assert_array(run_op("linspace", np.float32(0), np.float32(1), np.array([5], np.int32),
                        "float64"), np.array([0, 0.25, 0.5, 0.75, 1.0]))
    # ints: static_cast of the double values truncates
    assert_array(run_op("linspace", np.int64(0), np.int64(5), np.array([4], np.int32),
                        "int32"), np.array([0, 1, 3, 5], np.int32))
    assert_array(run_op("linspace", np.float32(3), np.float32(9), one, "float32"),
                 np.array([3.0], np.float32))
    with pytest.raises(PhiError, match="larger than 0"):
        run_op("linspace", np.float32(0), np.float32(1), np.array([0], np.int32), "float32")


def test_unique_unsorted_and_axis():
    ctx = get_context(CPUPlace())
    out, first, inverse, counts = unique_raw(ctx, np.array([3, 1, 3, 2], np.int64), True, True,
                                             True, [], DataType.INT32, False)
    assert_array(out, np.array([3, 1, 2], np.int64))
    assert_array(first, np.array([0, 1, 3], np.int32))
    assert_array(inverse, np.array([0, 1, 0, 2], np.int32))
    assert_array(counts, np.array([2, 1, 1], np.int32))
    rows = np.array([[1, 2], [0, 0], [1, 2]], np.float32)
    out, _, inverse, _ = unique(ctx, rows, False, True, False, [0], DataType.INT64)
    assert_array(out, np.array([[0, 0], [1, 2]], np.float32))
    assert_array(inverse, np.array([1, 0, 1], np.int64))


@pytest.mark.parametrize(("dtype", "start", "end", "step", "want"), [
    (np.int64, 5, -7, -3, [5, 2, -1, -4]),
    (np.int32, -2, 9, 4, [-2, 2, 6]),
    (np.int32, 7, 8, 5, [7]),
    (np.int64, 3, 3, 1, []),
    # near int32's end: the last value fits, start + size * step would not
    (np.int32, 2147483640, 2147483647, 5, [2147483640, 2147483645]),
])
def test_integer_arange_is_start_plus_i_steps(dtype, start, end, step, want):
    ctx = get_context(CPUPlace())
    got = arange_tensor(ctx, np.array([start], dtype), np.array([end], dtype),
                        np.array([step], dtype))
    assert got.dtype == dtype
    assert got.tolist() == want
