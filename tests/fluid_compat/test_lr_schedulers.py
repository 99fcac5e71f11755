"""Paddle 2.6.2's static-graph learning-rate schedulers (tests/fixtures/models/lr_schedulers,
made by tools/fixtures/gen_lr_models.py): the decay functions of paddle.optimizer.lr
(exponential, natural_exp, inverse_time, polynomial with and without cycle, piecewise, cosine,
linear warmup, noam) on one @LR_DECAY_COUNTER@. The program runs step after step in one scope,
the counter carried by the scope, and every step's LR values match Paddle's."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np

from fluid_compat import Executor, load_inference_model
from fluid_compat.framework.scope import Scope

MODEL = Path(__file__).resolve().parents[1] / "fixtures" / "models" / "lr_schedulers"


def _steps():
    meta = json.loads((MODEL / "meta.json").read_text())
    labels = [f["label"] for f in meta["fetches"]]
    for run in meta["runs"]:
        feed = {name: np.load(MODEL / item["file"]) for name, item in run["inputs"].items()}
        yield run["label"], feed, labels, [np.load(MODEL / o["file"]) for o in run["outputs"]]


def _run_steps(exe: Executor, scope: Scope, program, fetches) -> int:
    n = 0
    for label, feed, names, wanted in _steps():
        outs = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
        for name, got, ref in zip(names, outs, wanted, strict=True):
            got = np.asarray(got)
            assert got.shape == ref.shape and got.dtype == ref.dtype, (label, name)
            np.testing.assert_allclose(got, ref, rtol=1e-6, atol=0, err_msg=f"{label}: {name}")
        n += 1
    return n


def _checker():
    """tools/fixtures/check_with_project.py (dev tool, no paddle): Paddle's recorded kernel
    choices are read there once."""
    path = Path(__file__).resolve().parents[2] / "tools" / "fixtures" / "check_with_project.py"
    spec = importlib.util.spec_from_file_location("check_with_project", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_lr_scheduler_steps_match_paddle():
    scope, exe = Scope(), Executor()
    program, _, fetches = load_inference_model(MODEL / "inference", scope=scope)
    assert _run_steps(exe, scope, program, fetches) == 10
    # block 0's kernel decisions are among those Paddle's trace recorded
    meta = json.loads((MODEL / "meta.json").read_text())
    checked, bad = _checker().check_choices(exe._last_plan.ops, meta)
    assert checked > 50 and not bad, bad


def test_the_counter_lives_in_the_scope():
    # an eleventh step in the same scope counts on: step 10's values (worked by hand), not
    # step 0's
    scope, exe = Scope(), Executor()
    program, _, fetches = load_inference_model(MODEL / "inference", scope=scope)
    _run_steps(exe, scope, program, fetches)
    outs = exe.run(program, feed={"x": np.array([1.0, 2.0], "float32")}, fetch_list=fetches,
                   scope=scope)
    counter = np.asarray(scope.find_var("@LR_DECAY_COUNTER@").value.numpy())
    assert counter.dtype == np.int64 and counter.tolist() == [10]
    assert float(outs[0][0]) == 0.5 * 0.5 ** 3  # exponential, staircase: floor(10 / 3) = 3
    assert float(outs[5][0]) == np.float32(0.01)  # piecewise: past the last boundary
    np.testing.assert_allclose(outs[6][0], 0.5 * 0.5 * (np.cos(5 * np.pi / 4) + 1), rtol=1e-6)
