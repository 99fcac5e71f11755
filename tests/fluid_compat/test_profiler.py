"""The per-op profiler (fluid_compat.profiler): one event per op of every profiled run, the
first run kept apart from the steady state, fused steps named by the ops they stand for, the
ops of a while body nested in it, a Chrome trace file, and nothing recorded without it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import phi
from fluid_compat import Executor, load_inference_model
from fluid_compat.framework.scope import Scope
from fluid_compat.profiler import Profiler, current

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "models"


def _model(name: str, run: int = 0):
    d = MODELS / name
    scope = Scope()
    program, feeds, fetches = load_inference_model(d / "inference", scope=scope)
    meta = json.loads((d / "meta.json").read_text())
    if "runs" in meta:
        feed = {n: np.load(d / it["file"]) for n, it in meta["runs"][run]["inputs"].items()}
    else:
        feed = {f: np.load(d / f"input_{f}.npy") for f in feeds}
    return program, feed, fetches, scope


def _block0_ops(program) -> list[str]:
    return [op.type for op in program.desc.global_block.ops
            if op.type not in ("feed", "fetch", "fetch_v2")]


def test_every_op_of_an_unfused_run_is_one_event_in_program_order():
    old = phi.get_flags(["FLAGS_fuse_conv_bn"])
    phi.set_flags({"FLAGS_fuse_conv_bn": False})
    try:
        program, feed, fetches, scope = _model("lenet")
        exe = Executor()
        with Profiler() as prof:
            exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    finally:
        phi.set_flags(old)
    events = [e for e in prof.events if e.depth == 0]
    assert [e.name for e in events] == _block0_ops(program)
    assert all(e.first and e.run == 0 and e.dur_ns > 0 for e in events)
    conv = next(e for e in events if e.name == "conv2d")
    assert conv.kernel.startswith("phi kernel (CPU") and dict(conv.shapes)["Input"] == [
        list(feed[next(iter(feed))].shape)]
    # the events cover the run: their sum is within the run's wall time
    (start, dur, first), = prof.runs
    assert first and sum(e.dur_ns for e in events) <= dur


def test_the_first_run_and_the_steady_state_are_reported_apart():
    program, feed, fetches, scope = _model("resnet_tiny")
    exe = Executor()
    with Profiler() as prof:
        for _ in range(3):
            exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    first, steady = prof.run_times_ms()
    assert len(first) == 1 and len(steady) == 2
    rows_first = prof.op_type_rows(first=True)
    rows_steady = prof.op_type_rows(first=False)
    # the first run goes op by op; later runs replay fused conv + batch_norm (+ relu) steps
    assert {r["op"] for r in rows_first} >= {"conv2d", "batch_norm"}
    assert any("conv2d+batch_norm" in r["op"] for r in rows_steady)
    assert abs(sum(r["share"] for r in rows_steady) - 1) < 1e-9
    text = prof.summary(top=3)
    assert "per op type, first run:" in text and "per op type, steady state:" in text
    assert "slowest ops (steady state):" in text
    assert max(len(line) for line in text.splitlines()) <= 100


def test_the_ops_of_a_while_body_are_nested_events():
    program, feed, fetches, scope = _model("beam_search_decoder")
    with Profiler() as prof:
        Executor().run(program, feed=feed, fetch_list=fetches, scope=scope)
    (loop,) = [e for e in prof.events if e.depth == 0 and e.name == "while"]
    nested = [e for e in prof.events if e.depth == 1]
    body = [op.type for op in program.desc.block(loop_block(program)).ops]
    assert nested and {e.name for e in nested} <= set(body)
    assert len(nested) % len(body) == 0  # whole steps of the body
    assert all("> block" in e.where for e in nested)
    assert all(loop.start_ns <= e.start_ns <= loop.start_ns + loop.dur_ns for e in nested)


def loop_block(program) -> int:
    op = next(o for o in program.desc.global_block.ops if o.type == "while")
    return op.attr("sub_block")


def test_the_chrome_trace_file(tmp_path):
    program, feed, fetches, scope = _model("lenet")
    exe = Executor()
    with Profiler() as prof:
        for _ in range(2):
            exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    path = prof.export_chrome_trace(tmp_path / "trace.json")
    doc = json.loads(path.read_text())
    ops = [e for e in doc["traceEvents"] if e["cat"] == "op"]
    runs = [e for e in doc["traceEvents"] if e["cat"] == "run"]
    assert len(runs) == 2 and runs[0]["name"] == "run 0 (first)"
    assert all(e["ph"] == "X" and e["dur"] >= 0 and {"op_type", "kernel", "input_shapes"}
               <= set(e["args"]) for e in ops)
    assert runs[0]["ts"] <= ops[0]["ts"] and ops[-1]["ts"] <= runs[1]["ts"] + runs[1]["dur"]


def test_nothing_is_recorded_without_a_profiler_and_profilers_nest_per_thread():
    program, feed, fetches, scope = _model("lenet")
    exe = Executor()
    outer = Profiler()
    assert current() is None
    exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    with outer:
        with Profiler() as inner:
            exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
        assert current() is outer
    assert current() is None
    assert inner.events and not outer.events  # the innermost active profiler records


@pytest.mark.parametrize("model", ["lenet"])
def test_profiled_outputs_equal_unprofiled_ones(model):
    program, feed, fetches, scope = _model(model)
    exe = Executor()
    plain = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    with Profiler():
        timed = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    for a, b in zip(plain, timed, strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_predictor_with_enable_profile_profiles_its_runs(tmp_path):
    from fluid_compat import inference

    config = inference.Config(str(MODELS / "lenet" / "inference"))
    config.enable_profile()
    predictor = inference.create_predictor(config)
    x = np.load(MODELS / "lenet" / f"input_{predictor.get_input_names()[0]}.npy")
    for _ in range(3):
        predictor.run([x])
    first, steady = predictor.profiler.run_times_ms()
    assert len(first) == 1 and len(steady) == 2
    assert "per op type, steady state:" in predictor.profiler.summary()
    assert "enable_profile" in config.summary()
    plain = inference.create_predictor(inference.Config(str(MODELS / "lenet" / "inference")))
    assert plain.profiler is None and current() is None


def test_run_profile_on_the_command_line(tmp_path):
    import subprocess
    import sys

    trace = tmp_path / "trace.json"
    done = subprocess.run([sys.executable, "-m", "fluid_compat.cli", "run",
                           str(MODELS / "lenet" / "inference"), "--repeat", "3", "--profile",
                           "--profile-json", str(trace)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert "per op type, first run:" in done.stdout and "slowest ops" in done.stdout
    assert "Traceback" not in done.stderr
    doc = json.loads(trace.read_text())
    assert sum(e["cat"] == "run" for e in doc["traceEvents"]) == 3
    bad = subprocess.run([sys.executable, "-m", "fluid_compat.cli", "run",
                          str(MODELS / "lenet" / "inference"), "--profile-json",
                          str(tmp_path / "no" / "such" / "dir" / "t.json")],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 1 and "cannot write --profile-json" in bad.stderr
    assert "Traceback" not in bad.stderr
