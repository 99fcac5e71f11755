"""The legacy `rnn` op (LSTM, GRU, SimpleRNN; 2 layers, bidirectional; with and without
SequenceLength) against Paddle 2.6.2's recorded outputs (tools/fixtures/gen_rnn_cases.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import run_op
from phi.core.errors import InvalidArgument

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rnn"
CASES = sorted(p.stem for p in FIXTURES.glob("*.npz"))


def _run(name: str):
    meta = json.loads((FIXTURES / f"{name}.json").read_text())
    with np.load(FIXTURES / f"{name}.npz") as z:
        arrays = {k: z[k] for k in z.files}
    attrs = meta["attrs"]
    dirs = 2 if attrs["is_bidirec"] else 1
    n_states = 2 if attrs["mode"] == "LSTM" else 1
    batch = arrays["x"].shape[0]
    pre = [np.zeros((attrs["num_layers"] * dirs, batch, attrs["hidden_size"]), np.float32)
           for _ in range(n_states)]
    inputs = {"Input": arrays["x"].transpose(1, 0, 2), "PreState": pre,
              "WeightList": [arrays[f"w{i}"] for i in range(4 * attrs["num_layers"] * dirs)]}
    if "lengths" in arrays:
        inputs["SequenceLength"] = arrays["lengths"]
    return run_op("rnn", inputs, attrs), arrays


@pytest.mark.parametrize("name", CASES)
def test_rnn_matches_paddle(name):
    out, arrays = _run(name)
    got = out["Out"][0].transpose(1, 0, 2)
    np.testing.assert_allclose(got, arrays["out"], rtol=1e-5, atol=1e-6)
    states = [arrays[k] for k in sorted(arrays) if k.startswith("state")]
    assert len(out["State"]) == len(states)
    for g, ref in zip(out["State"], states, strict=True):
        np.testing.assert_allclose(g, ref, rtol=1e-5, atol=1e-6)
    if "lengths" in arrays:  # past its length a sequence's output is zero
        assert np.all(got[1, 2:] == 0)


def test_rnn_refuses_a_wrong_weight_list():
    x = np.zeros((3, 2, 4), np.float32)
    with pytest.raises(InvalidArgument, match="WeightList holds 2 tensors, expected 4"):
        run_op("rnn", {"Input": x, "PreState": [np.zeros((1, 2, 5), np.float32)],
                       "WeightList": [np.zeros((5, 4), np.float32)] * 2},
               {"mode": "RNN_TANH", "hidden_size": 5, "input_size": 4, "num_layers": 1})
