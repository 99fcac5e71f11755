"""The reduction, norm, loss and metric kernels against hand-worked values and float64
definitions written from Paddle's formulas (the Paddle-made cases in tests/fixtures/single_ops
cover the rest), and their InferMeta at compile time and on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import run_op
from phi.common import DataType
from phi.common.place import CPUPlace
from phi.core.errors import InvalidArgument, PhiError, Unavailable
from phi.core.tensor import DenseTensor, MetaTensor
from phi.infermeta import (
    accuracy_infer_meta,
    cross_entropy_with_softmax_infer_meta,
    kthvalue_infer_meta,
    nanmedian_infer_meta,
    nll_loss_raw_infer_meta,
    spectral_norm_infer_meta,
)

F32 = DataType.FLOAT32
f32, f64, i64 = np.float32, np.float64, np.int64


def _run(op, inputs, attrs=None, extra=False):
    if extra:  # ask for the extra outputs too (nanmedian's MedianIndex)
        from fluid_compat.imperative import run_op_with_operator

        result, _ = run_op_with_operator(op, inputs, attrs or {},
                                         extra_outputs=["MedianIndex"])
    else:
        result = run_op(op, inputs, attrs or {})
    return {k: [np.asarray(v) for v in vs] for k, vs in result.items()}


# -- reductions ------------------------------------------------------------------------------

def test_mode_picks_smallest_of_equal_counts_and_last_index_of_its_run():
    out = _run("mode", {"X": [np.array([[3, 1, 3, 1, 2], [7, 7, 5, 5, 5]], i64)]})
    assert out["Out"][0].tolist() == [1, 5]
    assert out["Indices"][0].tolist() == [3, 4]


def test_kthvalue_nan_is_largest_and_keepdim():
    x = np.array([[2.0, np.nan, 1.0], [0.0, 5.0, -1.0]], f32)
    out = _run("kthvalue", {"X": [x]}, {"k": 3, "keepdim": True})
    assert out["Out"][0].shape == (2, 1)
    assert np.isnan(out["Out"][0][0, 0]) and out["Out"][0][1, 0] == 5.0
    assert out["Indices"][0].tolist() == [[1], [1]]


@pytest.mark.parametrize(("row", "want"), [([-3, 0], -1), ([-4, -3, 9, 9], 3), ([-9, 2, 1], 1)])
def test_nanmedian_of_ints_truncates_toward_zero(row, want):
    # the mean of the two middle values in T: C++ integer division, -3 / 2 == -1
    out = _run("nanmedian", {"X": [np.array(row, np.int32)]}, {"keepdim": False})
    assert out["Out"][0].tolist() == want


def test_nanmedian_skips_nan_and_median_index_layout():
    out = _run("nanmedian", {"X": [np.array([[4.0, np.nan, 1.0, 2.0]], f64)]},
               {"axis": [1], "keepdim": False}, extra=True)
    assert out["Out"][0].tolist() == [2.0]
    assert out["MedianIndex"][0].shape == (8,) and out["MedianIndex"][0][:2].tolist() == [3, 3]


def test_logsumexp_matches_float64_definition():
    x = np.random.RandomState(0).uniform(-30, 30, (3, 4)).astype(f64)
    got = _run("logsumexp", {"X": [x]}, {"axis": [-1]})["Out"][0]
    np.testing.assert_allclose(got, np.log(np.exp(x).sum(-1)), rtol=1e-12)


def test_spectral_norm_converges_to_the_largest_singular_value():
    rng = np.random.RandomState(1)
    w = rng.uniform(-1, 1, (4, 6))
    out = _run("spectral_norm", {"Weight": [w], "U": [rng.uniform(-1, 1, 4)],
                                 "V": [rng.uniform(-1, 1, 6)]},
               {"power_iters": 200, "eps": 1e-12})["Out"][0]
    np.testing.assert_allclose(out, w / np.linalg.svd(w, compute_uv=False)[0], rtol=1e-9)


def test_renorm_scales_only_slices_over_max_norm():
    x = np.array([[3.0, 4.0], [0.3, 0.4]], f64)  # row norms 5 and 0.5
    out = _run("renorm", {"X": [x]}, {"p": 2.0, "axis": 0, "max_norm": 1.0})["Out"][0]
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.3, 0.4]], rtol=1e-15)


def test_amax_refuses_an_axis_named_twice():
    with pytest.raises(InvalidArgument):
        run_op("reduce_amax", {"X": [np.zeros((2, 3), f32)]}, {"dim": [1, -1]})


# -- losses ----------------------------------------------------------------------------------

def test_cross_entropy_clamps_log_of_zero_to_1e20_and_ignores_index():
    x = np.array([[0.0, 1.0], [0.5, 0.5]], f64)
    y = _run("cross_entropy", {"X": [x], "Label": [np.array([[0], [1]], i64)]},
             {"ignore_index": 1})["Y"][0]
    assert y.tolist() == [[1e20], [0.0]]


def test_sigmoid_ce_normalize_counts_labels_not_ignored():
    x = np.array([0.0, 2.0, -1.0], f64)
    label = np.array([1.0, -100.0, 0.0], f64)
    got = _run("sigmoid_cross_entropy_with_logits", {"X": [x], "Label": [label]},
               {"normalize": True})["Out"][0]
    want = np.maximum(x, 0) - x * label + np.log1p(np.exp(-np.abs(x)))
    want[1] = 0.0
    np.testing.assert_allclose(got, want / 2, rtol=1e-12)


def test_softmax_with_cross_entropy_hard_label_int32_and_out_of_range():
    logits = np.array([[1.0, 2.0, 3.0]], f64)
    out = _run("softmax_with_cross_entropy",
               {"Logits": [logits], "Label": [np.array([[2]], np.int32)]})
    p = np.exp(logits - 3) / np.exp(logits - 3).sum()
    np.testing.assert_allclose(out["Loss"][0], [[-np.log(p[0, 2])]], rtol=1e-12)
    with pytest.raises(InvalidArgument):
        run_op("softmax_with_cross_entropy",
               {"Logits": [logits], "Label": [np.array([[3]], i64)]}, {})


def test_nll_loss_mean_over_total_weight():
    x = np.log(np.array([[0.5, 0.25, 0.25], [0.1, 0.2, 0.7]], f64))
    w = np.array([1.0, 2.0, 4.0], f64)
    out = _run("nll_loss", {"X": [x], "Label": [np.array([0, 2], i64)], "Weight": [w]})
    want = -(1.0 * x[0, 0] + 4.0 * x[1, 2]) / 5.0
    np.testing.assert_allclose(out["Out"][0], want, rtol=1e-12)
    assert out["Total_weight"][0] == 5.0


def test_bce_loss_clamps_log_at_minus_100_and_checks_range():
    out = _run("bce_loss", {"X": [np.array([0.0, 1.0], f64)],
                            "Label": [np.array([1.0, 0.0], f64)]})["Out"][0]
    assert out.tolist() == [100.0, 100.0]
    with pytest.raises(InvalidArgument):
        run_op("bce_loss", {"X": [np.array([1.5], f64)], "Label": [np.array([1.0], f64)]}, {})


def test_margin_cross_entropy_is_unavailable_on_cpu():
    with pytest.raises(Unavailable):
        run_op("margin_cross_entropy", {"Logits": [np.zeros((2, 3), f32)],
                                        "Label": [np.array([0, 1], i64)]}, {})


# -- metrics ---------------------------------------------------------------------------------

def test_auc_of_a_perfect_ranking_is_one_and_state_accumulates():
    stat = np.zeros((2 * 5 + 1,), i64)
    out = _run("auc", {"Predict": [np.array([[0.9], [0.1], [0.8]], f32)],
                       "Label": [np.array([[1], [0], [1]], i64)],
                       "StatPos": [stat], "StatNeg": [stat]}, {"num_thresholds": 4})
    assert out["AUC"][0] == 1.0
    pos = out["StatPosOut"][0]
    # window 0 and the sum window both hold the two positives (buckets int(0.9*4)=3 and 3);
    # the last slot counts steps
    assert pos[:5].tolist() == [0, 0, 0, 2, 0] and pos[5:10].tolist() == [0, 0, 0, 2, 0]
    assert pos[10] == 1


def test_precision_recall_hand_worked():
    # class 0: one right, class 1: predicted 1 for a 0 -> TP0=1, FN0=1, FP1=1
    out = _run("precision_recall",
               {"MaxProbs": [np.ones((2, 1), f32)], "Indices": [np.array([[0], [1]], np.int32)],
                "Labels": [np.array([[0], [0]], np.int32)]}, {"class_number": 2})
    states = out["AccumStatesInfo"][0]
    assert states.tolist() == [[1, 0, 0, 1], [0, 1, 1, 0]]
    # macro precision (1 + 0) / 2, macro recall (0.5 + 1) / 2 (no TP+FN for class 1 -> 1)
    np.testing.assert_allclose(out["BatchMetrics"][0][:2], [0.5, 0.75], rtol=1e-7)


def test_positive_negative_pair_counts_per_query():
    out = _run("positive_negative_pair",
               {"Score": [np.array([[0.9], [0.1], [0.5], [0.5]], f32)],
                "Label": [np.array([[1.0], [0.0], [1.0], [0.0]], f32)],
                "QueryID": [np.array([[1], [1], [2], [2]], i64)]})
    # query 1: agrees -> positive; query 2: equal scores -> neutral and negative
    assert [out[k][0].tolist() for k in ("PositivePair", "NegativePair", "NeutralPair")] == \
        [[1.0], [1.0], [1.0]]


# -- InferMeta -------------------------------------------------------------------------------

def test_kthvalue_infer_meta_compile_time_and_k_check():
    out, idx = MetaTensor(), MetaTensor()
    kthvalue_infer_meta(MetaTensor((-1, 5), F32), 2, -1, True, out, idx)
    assert (out.dims, idx.dims, idx.dtype) == ((-1, 1), (-1, 1), DataType.INT64)
    with pytest.raises(InvalidArgument):
        kthvalue_infer_meta(MetaTensor((3, 4), F32), 5, 1, False, MetaTensor(), MetaTensor())


def test_nanmedian_infer_meta_dims():
    out, idx = MetaTensor(), MetaTensor()
    nanmedian_infer_meta(MetaTensor((2, 3, 4), F32), [0, -1], True, out, idx)
    assert out.dims == (1, 3, 1) and idx.dims == (48,)
    nanmedian_infer_meta(MetaTensor((-1, 3), F32), [], False, out, idx)
    assert out.dims == () and idx.dims == (-1,)


def test_cross_entropy_with_softmax_infer_meta_label_shape():
    sm, loss = MetaTensor(), MetaTensor()
    cross_entropy_with_softmax_infer_meta(MetaTensor((-1, 4, 3), F32),
                                          MetaTensor((-1, 1, 3), DataType.INT64), False, True,
                                          True, -100, 1, sm, loss)
    assert (sm.dims, loss.dims) == ((-1, 4, 3), (-1, 1, 3))
    with pytest.raises(InvalidArgument):
        cross_entropy_with_softmax_infer_meta(MetaTensor((2, 4), F32),
                                              MetaTensor((2, 4), DataType.INT64), False, True,
                                              True, -100, -1, MetaTensor(), MetaTensor())


@pytest.mark.parametrize("call", [
    lambda: nll_loss_raw_infer_meta(MetaTensor((2, 3, 4), F32), MetaTensor((2, 4), F32), None,
                                    -100, "mean", MetaTensor(), MetaTensor()),
    lambda: accuracy_infer_meta(MetaTensor((2, 1), F32), MetaTensor((2,), DataType.INT64),
                                MetaTensor((2, 1), DataType.INT64), MetaTensor(), MetaTensor(),
                                MetaTensor()),
    lambda: spectral_norm_infer_meta(MetaTensor((3,), F32), MetaTensor((3,), F32),
                                     MetaTensor((1,), F32), 0, 1, 1e-12, MetaTensor()),
])
def test_bad_shapes_raise_typed_errors(call):
    with pytest.raises(PhiError):
        call()


# -- detection_map (LoD inputs: Paddle-made outputs from tools/fixtures/gen_detection_map_lod.py)

_DETECTION_MAP = json.loads((Path(__file__).parent / "data_paddle" /
                             "detection_map_lod_paddle.json").read_text())


def _lod_tensor(rows, lens, dtype=DataType.FLOAT32):
    arr = np.asarray(rows, dtype=np.float32 if dtype is DataType.FLOAT32 else np.int32)
    return DenseTensor(arr, dtype, CPUPlace(), lod=(tuple(np.cumsum([0, *lens]).tolist()),))


@pytest.mark.parametrize("name", sorted(_DETECTION_MAP))
def test_detection_map_matches_paddle(name):
    case = _DETECTION_MAP[name]
    given = case["inputs"]
    inputs = {"DetectRes": [_lod_tensor(given["det"], given["det_lens"])],
              "Label": [_lod_tensor(given["lab"], given["lab_lens"])]}
    if "state" in given:
        count, tp, tp_lens, fp, fp_lens = given["state"]
        inputs.update({"HasState": [np.array([1], np.int32)],
                       "PosCount": [np.asarray(count, np.int32)],
                       "TruePos": [_lod_tensor(tp, tp_lens)],
                       "FalsePos": [_lod_tensor(fp, fp_lens)]})
    got = _run("detection_map", inputs, given["attrs"])
    for slot, (want, _lod) in case["outputs"].items():
        ref = np.asarray(want, dtype=got[slot][0].dtype)
        assert got[slot][0].shape == ref.shape, slot
        np.testing.assert_allclose(got[slot][0], ref, rtol=1e-6, err_msg=f"{name}.{slot}")


def test_detection_map_without_lod_is_refused():
    with pytest.raises(InvalidArgument, match="lod_level"):
        run_op("detection_map", {"DetectRes": [np.zeros((1, 6), f32)],
                                 "Label": [np.zeros((1, 6), f32)]}, {"class_num": 2})
