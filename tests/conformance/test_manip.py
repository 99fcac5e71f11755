"""Conformance cases for shape / index manipulation ops, ported from the attribute combinations
of Paddle's test/legacy_test/test_{reshape,transpose,concat,split,slice,strided_slice,squeeze2,
unsqueeze2,flatten_contiguous_range,stack,unstack,tile,expand_v2,gather,gather_nd,scatter,
scatter_nd_add,index_select,top_k_v2,arg_min_max,argsort,where,one_hot_v2,lookup_table_v2}_op.py
(0 and -1 in shapes, negative axes, tensor-valued attributes, out-of-range slice bounds,
decrease_axis, negative strides, overwrite=False ...). References are numpy formulas."""

from __future__ import annotations

import numpy as np
import pytest

from fluid_compat import run_op

R = np.random.default_rng(0)
X = R.uniform(-1, 1, [3, 4, 5]).astype(np.float32)
X2 = R.uniform(-1, 1, [2, 3, 4, 5]).astype(np.float64)
I32 = lambda a: np.array(a, np.int32)  # noqa: E731
I64 = lambda a: np.array(a, np.int64)  # noqa: E731

# (id, op, inputs, attrs, output slot, expected)
CASES = [
    ("reshape_0_-1", "reshape2", {"X": X2}, {"shape": [0, -1, 5]}, "Out", X2.reshape(2, 12, 5)),
    ("reshape_shape_tensor", "reshape2", {"X": X2, "Shape": I32([4, 0, 10])},
     {"shape": [1]}, "Out", X2.reshape(4, 3, 10)),
    ("reshape_shape_list", "reshape2", {"X": X2, "ShapeTensor": [I32([6]), I32([-1])]},
     {"shape": []}, "Out", X2.reshape(6, 20)),
    ("reshape_0d", "reshape2", {"X": np.array([3.0], np.float32)}, {"shape": []}, "Out",
     np.array(3.0, np.float32)),
    ("transpose", "transpose2", {"X": X2}, {"axis": [0, 3, 1, 2]}, "Out",
     X2.transpose(0, 3, 1, 2)),
    ("transpose_rev", "transpose2", {"X": X}, {"axis": [2, 1, 0]}, "Out", X.transpose()),
    ("concat_neg", "concat", {"X": [X, X * 2]}, {"axis": -1}, "Out",
     np.concatenate([X, X * 2], -1)),
    ("concat_axis_tensor", "concat", {"X": [X, X[:1]], "AxisTensor": I32([0])}, {"axis": 1},
     "Out", np.concatenate([X, X[:1]], 0)),
    ("concat_empty", "concat", {"X": [X, X[:0]]}, {"axis": 0}, "Out", X),
    ("split_num", "split", {"X": X2}, {"num": 3, "axis": 1}, "Out", np.split(X2, 3, 1)),
    ("split_sections", "split", {"X": X2}, {"sections": [2, -1, 1], "axis": -1}, "Out",
     np.split(X2, [2, 4], -1)),
    ("split_axis_tensor", "split", {"X": X2, "AxisTensor": I32([3])},
     {"sections": [1, 4], "axis": 0}, "Out", np.split(X2, [1], 3)),
    ("slice_neg", "slice", {"Input": X2}, {"axes": [1, 3], "starts": [-3, 1], "ends": [-1, 100],
                                          "infer_flags": [1, 1]}, "Out", X2[:, -3:-1, :, 1:]),
    ("slice_decrease", "slice", {"Input": X2}, {"axes": [0, 2], "starts": [1, 0], "ends": [2, 3],
                                                "decrease_axis": [0]}, "Out", X2[1, :, 0:3]),
    ("slice_tensors", "slice", {"Input": X2, "StartsTensor": I64([0, -2]),
                                "EndsTensor": I64([1, 1000])},
     {"axes": [0, 1], "starts": [0, 0], "ends": [1, 1]}, "Out", X2[0:1, -2:]),
    ("slice_out_of_range_empty", "slice", {"Input": X2}, {"axes": [2], "starts": [10],
                                                          "ends": [20]}, "Out", X2[:, :, 4:4]),
    ("strided_slice_neg", "strided_slice", {"Input": X2},
     {"axes": [1, 3], "starts": [-1, 4], "ends": [-1000, 0], "strides": [-1, -2]}, "Out",
     # Paddle 2.6.2 wraps the far end (-1000 + 3) then clamps it to 0 (exclusive), so index 0
     # is NOT taken, unlike numpy's [::-1] (fixture confb_strided_slice_neg_far_end)
     X2[:, 2:0:-1, :, 4:0:-2]),
    ("strided_slice_step", "strided_slice", {"Input": X2},
     {"axes": [0, 2], "starts": [0, 1], "ends": [2, 4], "strides": [2, 2]}, "Out",
     X2[0:2:2, :, 1:4:2]),
    ("squeeze_all", "squeeze2", {"X": X2[:1, :, :1]}, {"axes": []}, "Out",
     X2[0, :, 0]),
    ("squeeze_neg_nonunit", "squeeze2", {"X": X2[:, :, :1]}, {"axes": [-2, 1]}, "Out",
     X2[:, :, 0]),
    ("unsqueeze", "unsqueeze2", {"X": X}, {"axes": [0, -1]}, "Out", X[None, ..., None]),
    ("unsqueeze_tensor", "unsqueeze2", {"X": X, "AxesTensor": I32([1, 2])}, {"axes": []},
     "Out", X[:, None, None]),
    ("flatten_mid", "flatten_contiguous_range", {"X": X2}, {"start_axis": 1, "stop_axis": 2},
     "Out", X2.reshape(2, 12, 5)),
    ("flatten_neg", "flatten_contiguous_range", {"X": X2}, {"start_axis": -3, "stop_axis": -1},
     "Out", X2.reshape(2, 60)),
    ("stack_neg", "stack", {"X": [X, X + 1]}, {"axis": -1}, "Y", np.stack([X, X + 1], -1)),
    ("unstack", "unstack", {"X": X}, {"axis": 1, "num": 4}, "Y", list(np.moveaxis(X, 1, 0))),
    ("tile", "tile", {"X": X}, {"repeat_times": [2, 1, 1, 2]}, "Out", np.tile(X, [2, 1, 1, 2])),
    ("tile_list", "tile", {"X": X, "repeat_times_tensor": [I32([2]), I32([1]), I32([3])]},
     {"repeat_times": []}, "Out", np.tile(X, [2, 1, 3])),
    ("expand_-1", "expand_v2", {"X": X[:, :1]}, {"shape": [2, -1, 4, -1]}, "Out",
     np.broadcast_to(X[:, :1], [2, 3, 4, 5])),
    ("expand_shape_tensor", "expand_v2", {"X": X[:1], "Shape": I32([3, 4, 5])}, {"shape": []},
     "Out", np.broadcast_to(X[:1], [3, 4, 5])),
    ("gather", "gather", {"X": X, "Index": I32([2, 0, 2])}, {}, "Out", X[[2, 0, 2]]),
    ("gather_axis", "gather", {"X": X, "Index": I64([4, 1]), "Axis": I32([2])}, {}, "Out",
     X[:, :, [4, 1]]),
    ("gather_nd", "gather_nd", {"X": X, "Index": I32([[1, 2], [0, 3]])}, {}, "Out",
     X[[1, 0], [2, 3]]),
    ("gather_nd_empty_index", "gather_nd", {"X": X, "Index": np.zeros([2, 0], np.int64)}, {},
     "Out", np.stack([X, X])),
    ("index_select_neg", "index_select", {"X": X, "Index": I64([3, 0])}, {"dim": -2}, "Out",
     X[:, [3, 0]]),
    ("where", "where", {"Condition": X > 0, "X": X, "Y": -X}, {}, "Out", np.abs(X)),
    ("one_hot", "one_hot_v2", {"X": I64([[1], [3]])}, {"depth": 4, "dtype": 5}, "Out",
     np.eye(4, dtype=np.float32)[[[1], [3]]]),
]


def _scatter(x, ids, upd, overwrite):
    out = x.copy()
    if overwrite:
        for i, j in enumerate(ids):
            out[j] = upd[i]
    else:
        out[np.unique(ids)] = 0
        np.add.at(out, ids, upd)
    return out


UPD = R.uniform(-1, 1, [3, 4, 5]).astype(np.float32)
CASES += [
    ("scatter_overwrite", "scatter", {"X": X, "Ids": I32([2, 0, 1]), "Updates": UPD},
     {"overwrite": True}, "Out", _scatter(X, [2, 0, 1], UPD, True)),
    ("scatter_accumulate_dup", "scatter", {"X": X, "Ids": I64([1, 1, 0]), "Updates": UPD},
     {"overwrite": False}, "Out", _scatter(X, [1, 1, 0], UPD, False)),
]
_nd = X.copy()
np.add.at(_nd, ([1, 1, 2], [0, 0, 3]), UPD[:, 0])
CASES += [
    ("scatter_nd_add_dup", "scatter_nd_add",
     {"X": X, "Index": I64([[1, 0], [1, 0], [2, 3]]), "Updates": UPD[:, 0]}, {}, "Out", _nd),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_manip(case):
    _, op, inputs, attrs, slot, expected = case
    out = run_op(op, inputs, attrs)[slot]
    if not isinstance(expected, list):
        out, expected = out[0], [expected]
    else:
        assert len(out) == len(expected)
    for o, e in zip(out if isinstance(out, list) else [out], expected, strict=False):
        assert o.shape == e.shape, (o.shape, e.shape)
        assert o.dtype == e.dtype
        np.testing.assert_array_equal(o, e)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("axis", [-1, 0])
def test_top_k_v2(dtype, largest, axis):
    x = np.random.default_rng(1).permutation(60).reshape(6, 10).astype(dtype)
    res = run_op("top_k_v2", {"X": x}, dict(k=3, axis=axis, largest=largest, sorted=True))
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    idx = np.take(order, np.arange(3), axis=axis)
    np.testing.assert_array_equal(res["Indices"][0], idx)
    np.testing.assert_array_equal(res["Out"][0], np.take_along_axis(x, idx, axis))


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("descending", [True, False])
@pytest.mark.parametrize("axis", [-1, 1, 0])
def test_argsort(dtype, descending, axis):
    x = np.random.default_rng(2).permutation(60).reshape(3, 4, 5).astype(dtype)
    res = run_op("argsort", {"X": x}, dict(axis=axis, descending=descending))
    idx = np.argsort(-x if descending else x, axis=axis)
    np.testing.assert_array_equal(res["Indices"][0], idx)
    np.testing.assert_array_equal(res["Out"][0], np.take_along_axis(x, idx, axis))


@pytest.mark.parametrize("op", ["arg_max", "arg_min"])
@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("attrs", [dict(axis=0), dict(axis=-1, keepdims=True),
                                   dict(axis=1, dtype=2), dict(axis=0, flatten=True)],
                         ids=["axis0", "keepdims", "int32", "flatten"])
def test_arg_min_max(op, dtype, attrs):
    x = np.random.default_rng(3).permutation(60).reshape(3, 4, 5).astype(dtype)
    out = run_op(op, {"X": x}, attrs)["Out"][0]
    fn = np.argmax if op == "arg_max" else np.argmin
    if attrs.get("flatten"):
        ref = np.array(fn(x))
    else:
        ref = fn(x, axis=attrs["axis"], keepdims=attrs.get("keepdims", False))
    assert out.dtype == (np.int32 if attrs.get("dtype") == 2 else np.int64)
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("padding_idx", [-1, 2, -3])
def test_lookup_table_v2(dtype, padding_idx):
    w = np.random.default_rng(4).uniform(-1, 1, [10, 6]).astype(dtype)
    ids = I64([[1, 2], [7, 2], [0, 9]])
    out = run_op("lookup_table_v2", {"W": w, "Ids": ids}, dict(padding_idx=padding_idx))["Out"][0]
    ref = w[ids]
    # the op compares ids with padding_idx as given: the Python API, not the op, wraps a
    # negative one, so -3 pads nothing (fixture confb_lookup_table_v2_neg_padding_idx)
    if padding_idx != -1:
        ref[ids == padding_idx] = 0
    np.testing.assert_array_equal(out, ref)
