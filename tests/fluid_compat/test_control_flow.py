"""Programs with while loops and conditional blocks, saved by Paddle 2.6.2 (tests/fixtures),
run unchanged; both branches and a loop that never runs are exercised."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import Executor, load_inference_model
from fluid_compat.framework.scope import Scope

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "models"


def _runs(model: str) -> list[tuple[dict, list]]:
    d = FIXTURES / model
    meta = json.loads((d / "meta.json").read_text())
    out = []
    for run in meta["runs"]:
        feed = {name: np.load(d / item["file"]) for name, item in run["inputs"].items()}
        outs = [np.load(d / item["file"]) for item in run["outputs"]]
        out.append((feed, outs))
    return out


@pytest.mark.parametrize("model", ["while_loop", "cond_block"])
def test_control_flow_program_matches_paddle(model):
    scope = Scope()
    program, feeds, fetches = load_inference_model(FIXTURES / model / "inference", scope=scope)
    exe = Executor()
    for feed, wanted in _runs(model):  # two feeds: both branches / zero and five iterations
        outs = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
        assert len(outs) == len(wanted)
        for got, ref in zip(outs, wanted, strict=True):
            assert got.shape == ref.shape and got.dtype == ref.dtype
            np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
