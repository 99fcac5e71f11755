"""LoDTensorArray values (beam_search_decode's Ids / Scores): a list of LoD tensors
in the scope, fed to run_op as ``lod_tensor_array([...])`` and to the Executor as a list of
``(array, lod)`` pairs for a LOD_TENSOR_ARRAY variable; and the two ops finished with it
(beam_search_decode on the hand-checked data of Paddle's own unit test, generate_proposal_labels'
random sampling)."""

from __future__ import annotations

import numpy as np
import pytest

from fluid_compat import (
    Executor,
    FeedError,
    LoDTensorArray,
    Program,
    lod_tensor_array,
    run_op_tensors,
)
from fluid_compat.framework import ProgramDesc, VarType
from fluid_compat.framework.scope import Scope
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument

# Paddle's test_beam_search_decode_op: 5 steps, 2 sources, beam 2, end 1, scores = ids
_STEPS = [([0, 0], [[0, 1, 2], [0, 1, 2]]), ([2, 3, 4, 5], [[0, 1, 2], [0, 2, 4]]),
          ([3, 1, 5, 4], [[0, 2, 4], [0, 2, 2, 4, 4]]),
          ([1, 1, 3, 5], [[0, 2, 4], [0, 1, 2, 3, 4]]),
          ([5, 1], [[0, 2, 4], [0, 0, 0, 2, 2]])]
_WANT_LOD = ((0, 2, 4), (0, 4, 7, 12, 17))
_WANT = [0, 2, 3, 1, 0, 2, 1, 0, 4, 5, 3, 5, 0, 4, 5, 3, 1]


def _arrays(dtype=np.float32):
    ids = lod_tensor_array([(np.array(v, np.int64), lod) for v, lod in _STEPS])
    scores = lod_tensor_array([(np.array(v, dtype), lod) for v, lod in _STEPS])
    return ids, scores


def test_lod_tensor_array_holds_checked_lod_tensors():
    ids, _ = _arrays()
    assert isinstance(ids, LoDTensorArray) and len(ids) == 5
    assert ids[4].lod == ((0, 2, 4), (0, 0, 0, 2, 2)) and ids[4].dtype is DataType.INT64
    with pytest.raises(InvalidArgument, match=r"LoD is invalid: lod_tensor_array\[0\]"):
        lod_tensor_array([(np.zeros(2), [[0, 3]])])
    with pytest.raises(InvalidArgument, match="list of tensors"):
        lod_tensor_array(np.zeros(2))


def test_run_op_decodes_paddles_unit_test_data():
    ids, scores = _arrays()
    out = run_op_tensors("beam_search_decode", {"Ids": ids, "Scores": scores},
                         {"beam_size": 2, "end_id": 1})
    (sid,), (ssc,) = out["SentenceIds"], out["SentenceScores"]
    assert sid.lod == _WANT_LOD and ssc.lod == _WANT_LOD
    assert sid.numpy().tolist() == _WANT and sid.dtype is DataType.INT64
    assert ssc.numpy().tolist() == _WANT and ssc.dtype is DataType.FLOAT32


def _decode_program() -> Program:
    desc = ProgramDesc()
    block = desc.global_block
    block.create_var("ids", type=VarType.LOD_TENSOR_ARRAY, dtype=DataType.INT64)
    block.create_var("scores", type=VarType.LOD_TENSOR_ARRAY, dtype=DataType.FLOAT64)
    for name in ("sid", "ssc"):
        block.create_var(name, dtype=DataType.FLOAT32, shape=[-1], lod_level=2)
    block.append_op("beam_search_decode", {"Ids": ["ids"], "Scores": ["scores"]},
                    {"SentenceIds": ["sid"], "SentenceScores": ["ssc"]},
                    {"beam_size": 2, "end_id": 1})
    return Program(desc)


def test_executor_feeds_a_tensor_array_variable_a_list_of_pairs():
    feed = {"ids": [(np.array(v, np.int64), lod) for v, lod in _STEPS],
            "scores": [(np.array(v, np.float64), lod) for v, lod in _STEPS]}
    exe, scope = Executor(), Scope()
    for _ in range(2):  # the planned re-run too
        sid, ssc = exe.run(_decode_program(), feed=feed, fetch_list=["sid", "ssc"], scope=scope,
                           return_numpy=False)
        assert sid.lod == _WANT_LOD and sid.numpy().tolist() == _WANT
        assert ssc.numpy().dtype == np.float64
    with pytest.raises(FeedError, match="feed `ids`"):
        exe.run(_decode_program(), feed={**feed, "ids": np.zeros(3, np.int64)},
                fetch_list=["sid"])


@pytest.mark.parametrize(("steps", "match"), [
    ([], r"Variable\(Scores\).*empty"),  # as Paddle: no dtype to choose a kernel
    ([([1, 2], [[0, 2]])], "2 levels"),
    ([([1], [[0, 1], [0, 1]])], "fewer than beam_size"),
    ([([1, 2, 3], [[0, 1], [0, 3]])], "more than beam_size"),
])
def test_beam_search_decode_refuses_what_paddle_cannot_decode(steps, match):
    ids = lod_tensor_array([(np.array(v, np.int64), lod) for v, lod in steps])
    scores = lod_tensor_array([(np.array(v, np.float32), lod) for v, lod in steps])
    with pytest.raises(InvalidArgument, match=match):
        run_op_tensors("beam_search_decode", {"Ids": ids, "Scores": scores},
                       {"beam_size": 2, "end_id": 0})


# -- generate_proposal_labels: use_random (Paddle's draws come from std::random_device) --------

def _gpl(use_random: bool, cascade: bool = False, **extra):
    gt = np.array([[0, 0, 20, 20], [30, 30, 60, 60]], np.float32)
    rois = np.concatenate([gt + d for d in (0.5, 1, 1.5, 2, -1, 40)]).astype(np.float32)
    inputs = {"RpnRois": (rois, [[0, 12]]), "GtClasses": (np.array([[1], [2]], np.int32),
                                                          [[0, 2]]),
              "IsCrowd": (np.zeros((2, 1), np.int32), [[0, 2]]), "GtBoxes": (gt, [[0, 2]]),
              "ImInfo": np.array([[100, 100, 1]], np.float32), **extra}
    attrs = dict(batch_size_per_im=6, fg_fraction=0.5, fg_thresh=0.5, bg_thresh_hi=0.5,
                 bg_thresh_lo=0.0, bbox_reg_weights=[1, 1, 1, 1], class_nums=3,
                 use_random=use_random, is_cascade_rcnn=cascade)
    return run_op_tensors("generate_proposal_labels", inputs, attrs)


def test_random_sampling_keeps_the_counts_and_draws_from_the_foregrounds():
    # 12 foregrounds (the 2 ground truths, 10 shifted copies), 2 backgrounds (IoU 0.459, 0):
    # 6 * 0.5 = 3 foregrounds kept (the first ones without use_random), then the 2 backgrounds
    assert _gpl(False)["LabelsInt32"][0].numpy().ravel().tolist() == [1, 2, 1, 0, 0]
    for _ in range(3):
        got = _gpl(True)
        labels = got["LabelsInt32"][0].numpy().ravel()
        assert labels.shape == (5,) and (labels[:3] > 0).all() and (labels[3:] == 0).all()
        assert got["Rois"][0].lod == ((0, 5),)
        assert (got["MaxOverlapWithGT"][0].numpy()[:3] >= 0.5).all()


def test_cascade_needs_max_overlap():
    with pytest.raises(InvalidArgument, match="MaxOverlap"):
        _gpl(False, cascade=True)
