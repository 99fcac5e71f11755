"""Sequence (LoD) fusions through run_op on hand-worked values; Paddle-made cases of every op
with their LoD: tools/fixtures/cases/rnn_fused.py (test_corpus_cases)."""

from __future__ import annotations

import numpy as np
import pytest

from fluid_compat.imperative import run_op_with_operator
from phi.core.errors import InvalidArgument, Unimplemented
from phi.core.tensor import DenseTensor


def lod(a, offsets):
    t = DenseTensor.from_numpy(np.asarray(a))
    t.lod = (tuple(offsets),)
    return t


def test_seqpool_concat_pools_each_sequence():
    x0 = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    x1 = np.array([[1.0, 1.0], [2.0, 2.0], [4.0, 4.0]], np.float32)
    out, _ = run_op_with_operator("fusion_seqpool_concat",
                                  {"X": [lod(x0, [0, 1, 3]), lod(x1, [0, 1, 3])]},
                                  {"pooltype": "AVERAGE"})
    np.testing.assert_array_equal(out["Out"][0], [[1, 2, 1, 1], [4, 5, 3, 3]])


def test_embedding_seq_pool_sums_rows_and_skips_padding():
    w = np.arange(8, dtype=np.float64).reshape(4, 2)
    ids = np.array([[0], [2], [1], [3]], np.int64)
    out, _ = run_op_with_operator("fused_embedding_seq_pool",
                                  {"W": [w], "Ids": [lod(ids, [0, 2, 4])]}, {"padding_idx": 1})
    np.testing.assert_array_equal(out["Out"][0], [[4, 6], [6, 7]])


def test_lstm_one_step_is_the_cell_formula():
    h = 1
    x = np.array([[0.5, 0.2, -0.3, 0.1]])  # [c~, i, f, o] pre-activations
    out, _ = run_op_with_operator("lstm", {"Input": [lod(x, [0, 1])],
                                           "Weight": [np.zeros((h, 4))],
                                           "Bias": [np.zeros((1, 4))]},
                                  {"use_peepholes": False})

    def sig(v):
        return 1 / (1 + np.exp(-v))

    c = np.tanh(0.5) * sig(0.2)
    np.testing.assert_allclose(out["Cell"][0], [[c]], rtol=1e-12)
    np.testing.assert_allclose(out["Hidden"][0], [[sig(0.1) * np.tanh(c)]], rtol=1e-12)


@pytest.mark.parametrize(("op", "inputs"), [
    ("gru", {"Input": [np.zeros((2, 3))], "Weight": [np.zeros((1, 3))]}),
    ("fusion_lstm", {"X": [np.zeros((2, 1))], "WeightX": [np.zeros((1, 4))],
                     "WeightH": [np.zeros((1, 4))], "Bias": [np.zeros((1, 7))]}),
    ("fusion_seqpool_concat", {"X": [np.zeros((2, 1))]}),
])
def test_inputs_without_lod_are_refused(op, inputs):
    with pytest.raises(InvalidArgument):
        run_op_with_operator(op, inputs, {})


def test_fused_seqpool_cvm_is_gpu_only():
    with pytest.raises(Unimplemented):
        run_op_with_operator("fused_seqpool_cvm", {"X": [lod(np.ones((2, 3), np.float32),
                                                             [0, 2])],
                                                   "CVM": [np.ones((1, 2), np.float32)]}, {})
