"""Serving one loaded model to many requests: one Executor shared by many threads gives every
request exactly (bitwise) the result of a serial run, and a program's first run gives the
same bits as every later run (fused or not)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import Executor, load_inference_model
from fluid_compat.framework.scope import Scope
from phi import get_flags, set_flags

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "models"
# real models exported by Paddle 2.6.2: conv + batch_norm chains that fuse (mobilenet_v2),
# a transformer encoder with int64 ids (bert)
SERVED = ["mobilenet_v2_small", "resnet_tiny", "bert_tiny"]


def _load(model: str):
    scope = Scope()
    program, feeds, fetches = load_inference_model(MODELS / model / "inference", scope=scope)
    meta = json.loads((MODELS / model / "meta.json").read_text())
    return program, feeds, fetches, scope, meta


def _feeds(model_dir: Path, meta: dict, seed: int) -> dict[str, np.ndarray]:
    """Inputs like the recorded ones: floats redrawn, integer ids permuted within their range."""
    rng = np.random.default_rng(seed)
    out = {}
    for f in meta["feeds"]:
        ref = np.load(model_dir / f["file"])
        if np.issubdtype(ref.dtype, np.floating):
            out[f["name"]] = rng.standard_normal(ref.shape).astype(ref.dtype)
        else:
            out[f["name"]] = rng.integers(ref.min(), ref.max() + 1, ref.shape).astype(ref.dtype)
    return out


@pytest.fixture
def fusion_flag():
    before = get_flags(["FLAGS_fuse_conv_bn"])
    yield
    set_flags(before)


@pytest.mark.parametrize("model", SERVED)
def test_first_run_equals_later_runs_bitwise(model, fusion_flag):
    program, _, fetches, scope, meta = _load(model)
    feed = _feeds(MODELS / model, meta, 0)
    exe = Executor()
    runs = [exe.run(program, feed=feed, fetch_list=fetches, scope=scope) for _ in range(3)]
    for later in runs[1:]:
        for a, b in zip(runs[0], later, strict=True):
            assert a.tobytes() == b.tobytes()
    # fusion on or off: the same bits (a fused step repeats batch_norm's arithmetic)
    set_flags({"FLAGS_fuse_conv_bn": False})
    unfused = Executor().run(program, feed=feed, fetch_list=fetches, scope=scope)
    for a, b in zip(runs[0], unfused, strict=True):
        assert a.tobytes() == b.tobytes()
    if model == "mobilenet_v2_small":
        assert exe.last_stats.fused_ops > 0  # the runs compared above really ran fused


@pytest.mark.parametrize("model", SERVED)
def test_one_executor_many_threads_equals_serial_runs(model):
    threads, runs = 8, 4
    program, _, fetches, scope, meta = _load(model)
    feeds = {(t, r): _feeds(MODELS / model, meta, 1000 * t + r)
             for t in range(threads) for r in range(runs)}
    serial = Executor()
    want = {k: serial.run(program, feed=f, fetch_list=fetches, scope=scope)
            for k, f in feeds.items()}

    shared = Executor()
    got: dict = {}
    errors: list = []
    start = threading.Barrier(threads)

    def serve(t: int) -> None:
        try:
            start.wait()
            for r in range(runs):
                got[t, r] = shared.run(program, feed=feeds[t, r], fetch_list=fetches,
                                       scope=scope)
        except BaseException as exc:  # reported below with the thread's index
            errors.append((t, exc))

    pool = [threading.Thread(target=serve, args=(t,)) for t in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    assert errors == []
    assert sorted(got) == sorted(want)
    for key, outs in got.items():
        for a, b in zip(outs, want[key], strict=True):
            assert a.tobytes() == b.tobytes(), f"thread/run {key}"
    # at most one plan per run in flight, and they were reused
    assert 1 <= len(shared.plans()) <= threads


def test_a_plan_serves_one_run_at_a_time():
    program, _, fetches, scope, meta = _load("lenet")
    exe = Executor()
    feed = _feeds(MODELS / "lenet", meta, 0)
    for _ in range(3):
        exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    assert len(exe.plans()) == 1  # serial runs reuse the one plan
