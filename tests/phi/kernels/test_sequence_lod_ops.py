"""Hand-worked checks of the sequence / LoD family's kernels beyond the Paddle-made cases (the
random shuffle_batch permutation, Levenshtein values, CTC decoding)."""

from __future__ import annotations

import numpy as np
import pytest

from fluid_compat import run_op, run_op_tensors


def test_shuffle_batch_out_is_x_rows_in_shuffle_idx_order():
    x = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
    out = run_op_tensors("shuffle_batch", {"X": x, "Seed": np.array([9], np.int64)},
                         {"startup_seed": 0})
    idx = out["ShuffleIdx"][0].numpy()
    assert sorted(idx.tolist()) == list(range(8))
    # Paddle copies row i of X to row ShuffleIdx[i] of Out (shuffle_batch_op.h)
    np.testing.assert_array_equal(out["Out"][0].numpy().reshape(8, 3)[idx], x.reshape(8, 3))
    assert out["SeedOut"][0].numpy().tolist() == [9 * 16807]  # minstd_rand0's first draw


@pytest.mark.parametrize(("hyp", "ref", "normalized", "want"), [
    ([1, 2, 3], [1, 2, 3], False, 0.0),
    ([1, 2, 3], [3, 2, 1], False, 2.0),       # two substitutions
    ([], [4, 5], False, 2.0),                 # empty hypothesis: |ref| insertions
    ([7, 8, 9, 10], [8, 9], True, 1.0),       # two deletions / |ref| 2
])
def test_edit_distance_hand_values(hyp, ref, normalized, want):
    h = (np.array(hyp or [0], np.int64).reshape(-1, 1)[:len(hyp)], [[0, len(hyp)]])
    r = (np.array(ref, np.int64).reshape(-1, 1), [[0, len(ref)]])
    out = run_op("edit_distance", {"Hyps": h, "Refs": r}, {"normalized": normalized})
    assert out["Out"][0].tolist() == [[want]]
    assert out["SequenceNum"][0].tolist() == [1]


def test_ctc_align_lod_merges_repeats_and_keeps_lod():
    x = (np.array([[1], [1], [0], [1], [2], [2]], np.int32), [[0, 4, 6]])
    out = run_op_tensors("ctc_align", {"Input": x}, {"blank": 0, "merge_repeated": True})
    t = out["Output"][0]
    assert t.numpy().reshape(-1).tolist() == [1, 1, 2]
    assert [list(v) for v in t.lod] == [[0, 2, 3]]


def test_tdm_sampler_negatives_are_the_other_nodes_of_each_layer():
    travel = np.array([[0, 0], [1, 3], [1, 4], [2, 5], [2, 6]], np.int32)
    layer = np.arange(1, 7, dtype=np.int32).reshape(-1, 1)
    out = run_op("tdm_sampler", {"X": np.array([[2]], np.int64), "Travel": travel,
                                 "Layer": layer},
                 {"neg_samples_num_list": [1, 3], "layer_offset_lod": [0, 2, 6],
                  "output_positive": True, "dtype": 2})
    row = out["Out"][0][0].tolist()
    assert row[0] == 1 and row[1] == 2          # layer 1: positive 1, the one other node
    assert row[2] == 4 and sorted(row[3:]) == [3, 5, 6]
    assert out["Labels"][0][0].tolist() == [1, 0, 1, 0, 0, 0]
