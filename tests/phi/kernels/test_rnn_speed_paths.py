"""The rnn kernel's fast path (a layer's directions stepped together, no per-step masking)
against its reference path (one direction, one step at a time), bit for bit, and both against
Paddle 2.6.2: the seq2vec classifiers of tools/fixtures/gen_rnn_models.py end to end."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import Executor, load_inference_model, run_op
from fluid_compat.framework.scope import Scope
from phi.flags import get_flags, set_flags
from phi.kernels import rnn as rnn_module

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "models"
GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


@pytest.fixture
def fast_flag():
    saved = get_flags([rnn_module.FAST_FLAG])
    yield
    set_flags(saved)


def _inputs(mode, steps, batch, size_in, hidden, layers, bidirec, lengths, dtype, seed):
    rng = np.random.default_rng(seed)
    dirs = 2 if bidirec else 1
    g = GATES[mode] * hidden
    weights, biases = [], []
    for layer in range(layers):
        for _ in range(dirs):
            weights.append(rng.uniform(-0.5, 0.5, (g, size_in if layer == 0 else dirs * hidden)))
            weights.append(rng.uniform(-0.5, 0.5, (g, hidden)))
            biases += [rng.uniform(-0.5, 0.5, (g,)) for _ in range(2)]
    states = [rng.uniform(-1, 1, (layers * dirs, batch, hidden))
              for _ in range(2 if mode == "LSTM" else 1)]
    inputs = {"Input": rng.uniform(-2, 2, (steps, batch, size_in)).astype(dtype),
              "PreState": [s.astype(dtype) for s in states],
              "WeightList": [w.astype(dtype) for w in weights + biases]}
    if lengths is not None:
        inputs["SequenceLength"] = np.asarray(lengths, np.int64)
    attrs = {"mode": mode, "hidden_size": hidden, "input_size": size_in, "num_layers": layers,
             "is_bidirec": bidirec, "is_test": True}
    return inputs, attrs


def _both_paths(inputs, attrs):
    results = []
    for fast in (True, False):
        set_flags({rnn_module.FAST_FLAG: fast})
        out = run_op("rnn", inputs, attrs)
        results.append([out["Out"][0], *out["State"]])
    return results


CASES = [
    # steps, batch, input, hidden, layers, bidirec, lengths, dtype
    (7, 4, 5, 6, 2, True, None, np.float32),
    (7, 4, 5, 6, 2, True, [7, 3, 0, 5], np.float32),
    (9, 3, 8, 16, 1, False, [9, 1, 4], np.float32),
    (32, 4, 64, 64, 2, True, [32, 25, 17, 9], np.float32),  # the seq2vec size: BLAS's paths
    (5, 1, 3, 64, 2, True, None, np.float64),
    (1, 2, 3, 4, 1, True, [1, 0], np.float32),
    (6, 2, 3, 4, 3, False, None, np.float64),
]


@pytest.mark.parametrize("mode", list(GATES))
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"T{c[0]}B{c[1]}H{c[3]}L{c[4]}"
                         f"{'bi' if c[5] else 'uni'}{'-len' if c[6] else ''}-{c[7].__name__}")
def test_fast_path_equals_reference_bit_for_bit(fast_flag, mode, case):
    inputs, attrs = _inputs(mode, *case, seed=len(mode) + case[0])
    fast, ref = _both_paths(inputs, attrs)
    assert len(fast) == len(ref) == (3 if mode == "LSTM" else 2)
    for a, b in zip(fast, ref, strict=True):
        assert a.dtype == b.dtype == case[7] and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_fast_path_equals_reference_with_dropout_between_layers(fast_flag, mode):
    """Training-mode dropout (a fixed seed: the same mask stream on both paths)."""
    inputs, attrs = _inputs(mode, 5, 3, 4, 6, 3, True, [5, 2, 4], np.float32, 3)
    attrs = dict(attrs, is_test=False, dropout_prob=0.4, seed=7)
    fast, ref = _both_paths(inputs, attrs)
    for a, b in zip(fast, ref, strict=True):
        np.testing.assert_array_equal(a, b)
    no_drop = _both_paths(inputs, dict(attrs, dropout_prob=0.0))[0]
    assert not np.array_equal(fast[0], no_drop[0])  # the dropout did act


def test_fast_path_is_taken_and_refuses_what_it_cannot_run(fast_flag, monkeypatch):
    calls = []
    real = rnn_module._layer_fast
    monkeypatch.setattr(rnn_module, "_layer_fast", lambda *a: calls.append(1) or real(*a))
    inputs, attrs = _inputs("LSTM", 4, 2, 3, 5, 2, True, [4, 2], np.float32, 0)
    set_flags({rnn_module.FAST_FLAG: True})
    run_op("rnn", inputs, attrs)
    assert len(calls) == 2  # one call a layer
    calls.clear()
    set_flags({rnn_module.FAST_FLAG: False})
    run_op("rnn", inputs, attrs)
    assert not calls
    # a length past T is the reference path's (and its error), not a silent clip
    set_flags({rnn_module.FAST_FLAG: True})
    bad = dict(inputs, SequenceLength=np.asarray([5, 2], np.int64))
    with pytest.raises(Exception, match="index"):
        run_op("rnn", bad, attrs)
    assert not calls


def test_padding_is_zero_and_state_is_the_last_valid_step(fast_flag):
    """Hand-checkable: 1 layer, forward, hidden 1, RNN_TANH with W_ih = 1, W_hh = 0, no bias:
    h_t = tanh(x_t); past a length the output is 0 and the state stays h at length - 1 (h0
    for length 0)."""
    x = np.array([[[0.5], [1.0], [2.0]], [[-0.25], [3.0], [0.0]]], np.float32)  # [T=2, B=3]
    h0 = np.array([[[0.1], [0.2], [0.3]]], np.float32)
    ones, zeros = np.ones((1, 1), np.float32), np.zeros((1, 1), np.float32)
    inputs = {"Input": x, "PreState": [h0], "SequenceLength": np.array([2, 1, 0], np.int64),
              "WeightList": [ones, zeros, np.zeros(1, np.float32), np.zeros(1, np.float32)]}
    attrs = {"mode": "RNN_TANH", "hidden_size": 1, "input_size": 1, "num_layers": 1,
             "is_bidirec": False, "is_test": True}
    out = run_op("rnn", inputs, attrs)
    want = np.array([[[np.tanh(0.5)], [np.tanh(1.0)], [0.0]],
                     [[np.tanh(-0.25)], [0.0], [0.0]]], np.float32)
    np.testing.assert_allclose(out["Out"][0], want, rtol=1e-6)
    np.testing.assert_allclose(out["State"][0],
                               [[[np.tanh(-0.25)], [np.tanh(1.0)], [0.3]]], rtol=1e-6)


@pytest.mark.parametrize("model", ["bilstm_seq2vec", "bigru_seq2vec"])
@pytest.mark.parametrize("fast", [True, False])
def test_seq2vec_classifier_matches_paddle(fast_flag, model, fast):
    d = MODELS / model
    meta = json.loads((d / "meta.json").read_text())
    assert sum(f.stat().st_size for f in d.iterdir()) < 400 * 1024
    set_flags({rnn_module.FAST_FLAG: fast})
    scope = Scope()
    program, _, fetches = load_inference_model(d / "inference", scope=scope)
    assert "rnn" in meta["op_type_counts"]
    exe = Executor()
    for run in meta["runs"]:  # batch 4 / seq 32, then batch 2 / seq 16: one planned program
        feed = {name: np.load(d / item["file"]) for name, item in run["inputs"].items()}
        (got,) = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
        want = np.load(d / run["outputs"][0]["file"])
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)
