"""Compiled segments (fluid_compat.operators.segments): stretches of planned ops replayed by one
generated function give the bits of the op-by-op runners on every Paddle-saved model, bail out
to the runners on anything unexpected (other dims, data-dependent dims, a kernel error) with the
same results and errors, and keep the dispatch records true."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fluid_compat import Executor, Program, load_inference_model
from fluid_compat.framework import ProgramDesc
from fluid_compat.framework.scope import Scope
from fluid_compat.operators import segments
from fluid_compat.operators.segments import CompiledSegment
from phi.common import DataType
from phi.core.errors import Fatal, PhiError
from phi.core.tensor import DenseTensor
from phi.flags import set_flags
from tests.corpus_paths import FIXTURES

MODELS = sorted(p.name for p in (FIXTURES / "models").iterdir()
                if (p / "inference.pdmodel").is_file())


@pytest.fixture(autouse=True)
def _segments_on():
    set_flags({"FLAGS_plan_segments": True})
    yield
    set_flags({"FLAGS_plan_segments": True})


def _feeds(model_dir, feeds):
    return {n: np.load(model_dir / f"input_{n.replace('/', '_')}.npy") for n in feeds}


def _segments(exe) -> list[CompiledSegment]:
    return [s for s, _, _ in exe._last_plan.steps if isinstance(s, CompiledSegment)]


@pytest.mark.parametrize("model", MODELS)
def test_models_give_the_runners_bits(model):
    model_dir = FIXTURES / "models" / model
    feed_files = sorted(model_dir.glob("input_*.npy"))
    if not feed_files:
        pytest.skip("no recorded feed")
    # two scopes in lockstep (programs with state, such as lr schedulers, change every run)
    runs = {}
    for flag in (True, False):
        scope = Scope()
        program, feeds, fetches = load_inference_model(model_dir / "inference", scope=scope)
        runs[flag] = (Executor(), program, scope)
    feed = _feeds(model_dir, feeds)
    for _ in range(3):
        outs = {}
        for flag, (exe, program, scope) in runs.items():
            set_flags({"FLAGS_plan_segments": flag})
            outs[flag] = exe.run(program, feed=feed, fetch_list=fetches, scope=scope,
                                 return_numpy=False)
        for a, b in zip(outs[True], outs[False], strict=True):
            assert a.dtype is b.dtype and a.lod == b.lod
            np.testing.assert_array_equal(np.asarray(a.data), np.asarray(b.data))
    exe, program, scope = runs[True]
    meta = json.loads((model_dir / "meta.json").read_text())
    if model in ("bert_tiny", "transformer_tiny", "chain200_add"):  # all planned: one segment
        set_flags({"FLAGS_plan_segments": True})
        exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
        assert exe.last_stats.segment_ops == exe.last_stats.ops, meta["model"]


def test_counters_count_compiled_runs():
    model_dir = FIXTURES / "models" / "bert_tiny"
    scope = Scope()
    program, feeds, fetches = load_inference_model(model_dir / "inference", scope=scope)
    feed = _feeds(model_dir, feeds)
    exe = Executor()
    for _ in range(4):
        exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    (segment,) = _segments(exe)
    assert segment.runs == 3  # runs 2..4 (run 1 went op by op, the runners learning)
    assert all(r.runs == 4 and r.fast_runs == 3 for r in segment.members)


def _chain_program():
    """x -> masked_select(mask) -> scale -> relu -> out: the select's dims depend on the data."""
    desc = ProgramDesc()
    block = desc.global_block
    block.create_var("x", dtype=DataType.FLOAT32, shape=[8])
    block.create_var("mask", dtype=DataType.BOOL, shape=[8])
    for name in ("sel", "scaled", "out"):
        block.create_var(name, dtype=DataType.FLOAT32, shape=[-1])
    block.append_op("masked_select", {"X": ["x"], "Mask": ["mask"]}, {"Y": ["sel"]}, {})
    block.append_op("scale", {"X": ["sel"]}, {"Out": ["scaled"]},
                    {"scale": 2.0, "bias": 1.0, "bias_after_scale": True})
    block.append_op("relu", {"X": ["scaled"]}, {"Out": ["out"]}, {})
    return Program(desc)


def test_data_dependent_dims_bail_out_with_the_runners_results():
    program = _chain_program()
    exe = Executor()
    x = np.linspace(-2.0, 2.0, 8).astype(np.float32)
    masks = [np.arange(8) % 2 == 0] * 3 + [np.arange(8) < 3, np.ones(8, bool),
                                           np.zeros(8, bool), np.arange(8) < 3] * 2
    for mask in masks:
        out = exe.run(program, feed={"x": x, "mask": mask}, fetch_list=["out"])[0]
        np.testing.assert_array_equal(out, np.maximum(x[mask] * 2.0 + 1.0, 0.0))
    (segment,) = _segments(exe)
    assert segment.bails > segments.MAX_BAILS  # dims kept changing: op by op from then on
    assert all(r.runs == len(masks) for r in segment.members)
    assert exe.last_stats.segment_ops == 0


def _plain_program():
    """x [-1, 4] -> scale -> tanh -> elementwise_add(x) -> out."""
    desc = ProgramDesc()
    block = desc.global_block
    for name in ("x", "scaled", "t", "out"):
        block.create_var(name, dtype=DataType.FLOAT32, shape=[-1, 4])
    block.append_op("scale", {"X": ["x"]}, {"Out": ["scaled"]},
                    {"scale": 0.5, "bias": 0.0, "bias_after_scale": True})
    block.append_op("tanh", {"X": ["scaled"]}, {"Out": ["t"]}, {})
    block.append_op("elementwise_add", {"X": ["t"], "Y": ["x"]}, {"Out": ["out"]}, {"axis": -1})
    return Program(desc)


def test_other_feed_dims_bail_out_then_rearm():
    program = _plain_program()
    exe = Executor()
    rng = np.random.default_rng(3)
    x2, x3 = (rng.standard_normal((n, 4)).astype(np.float32) for n in (2, 3))
    for _ in range(2):
        exe.run(program, feed={"x": x2}, fetch_list=["out"])
    got = exe.run(program, feed={"x": x3}, fetch_list=["out"])[0]  # same plan, other dims
    (segment,) = _segments(exe)
    assert segment.bails == 1 and exe.last_stats.segment_ops == 0
    again = exe.run(program, feed={"x": x3}, fetch_list=["out"])[0]  # re-armed
    assert exe.last_stats.segment_ops == 3
    want = np.tanh(x3 * np.float32(0.5)) + x3
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(again, want)


def _held(exe) -> list[str]:
    """Names of the Variables a step released that still hold a value after the run."""
    plan = exe._last_plan
    dead = [v for _step, release, _ in plan.steps for v in release]
    return [v.name for v in dead if v.value is not None]


def test_released_values_hold_nothing_after_compiled_and_bailed_runs():
    program = _plain_program()
    exe = Executor()
    rng = np.random.default_rng(4)
    x2, x3 = (rng.standard_normal((n, 4)).astype(np.float32) for n in (2, 3))
    for x, compiled in ((x2, False), (x2, True), (x3, False), (x3, True)):  # x3: a bail-out
        exe.run(program, feed={"x": x}, fetch_list=["out"])
        assert (exe.last_stats.segment_ops == 3) is compiled
        assert not _held(exe)
    (segment,) = _segments(exe)
    assert segment.bails == 1


def test_a_name_written_again_inside_a_segment_holds_nothing_after_it():
    # t is written by a fused conv_bn step and read by the next, then written again and let go
    # inside the segment: a compiled run keeps the new t in a local, so the plan must still
    # release the Variable (it held the first t)
    c = 4
    desc = ProgramDesc()
    block = desc.global_block
    f32 = DataType.FLOAT32
    block.create_var("x", dtype=f32, shape=[-1, c, 6, 6])
    for name in ("w", "mean", "var", "scale", "bias"):
        block.create_var(name, dtype=f32, shape=[c, c, 3, 3] if name == "w" else [c],
                         persistable=True)
    for name in ("c1", "t", "c2", "u", "out", "sm", "sv", "sm2", "sv2"):
        block.create_var(name, dtype=f32, shape=[-1, c, 6, 6])
    for src, conv_out, dst, sm, sv in (("x", "c1", "t", "sm", "sv"),
                                       ("t", "c2", "u", "sm2", "sv2")):
        block.append_op("conv2d", {"Input": [src], "Filter": ["w"]}, {"Output": [conv_out]},
                        {"strides": [1, 1], "paddings": [1, 1], "dilations": [1, 1],
                         "groups": 1, "data_format": "NCHW", "padding_algorithm": "EXPLICIT"})
        block.append_op("batch_norm", {"X": [conv_out], "Mean": ["mean"], "Variance": ["var"],
                                       "Scale": ["scale"], "Bias": ["bias"]},
                        {"Y": [dst], "MeanOut": ["mean"], "VarianceOut": ["var"],
                         "SavedMean": [sm], "SavedVariance": [sv]},
                        {"is_test": True, "epsilon": 1e-5, "momentum": 0.9,
                         "data_layout": "NCHW"})
    block.append_op("scale", {"X": ["u"]}, {"Out": ["t"]}, {"scale": 2.0})
    block.append_op("scale", {"X": ["t"]}, {"Out": ["out"]}, {"scale": 3.0})
    program = Program(desc)
    scope = Scope()
    rng = np.random.default_rng(5)
    for name, shape in (("w", (c, c, 3, 3)), ("mean", (c,)), ("var", (c,)), ("scale", (c,)),
                        ("bias", (c,))):
        scope.var(name).value = DenseTensor.from_numpy(
            rng.uniform(0.5, 1.5, shape).astype(np.float32))
    exe = Executor()
    x = rng.standard_normal((1, c, 6, 6)).astype(np.float32)
    outs = [exe.run(program, feed={"x": x}, fetch_list=["out"], scope=scope)[0]
            for _ in range(3)]
    (segment,) = _segments(exe)
    assert segment.last_compiled
    assert exe._last_plan.local.find_var("t").value is None and not _held(exe)
    np.testing.assert_array_equal(outs[2], outs[0])


def test_a_kernel_error_inside_is_the_runners_error():
    model_dir = FIXTURES / "models" / "bert_tiny"
    scope = Scope()
    program, feeds, fetches = load_inference_model(model_dir / "inference", scope=scope)
    feed = _feeds(model_dir, feeds)
    exe = Executor()
    for _ in range(2):
        exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    bad = dict(feed)
    bad["input_ids"] = np.full_like(feed["input_ids"], 10_000)  # beyond the vocabulary
    with pytest.raises(PhiError) as compiled:
        exe.run(program, feed=bad, fetch_list=fetches, scope=scope)
    set_flags({"FLAGS_plan_segments": False})
    with pytest.raises(PhiError) as by_op:
        exe.run(program, feed=bad, fetch_list=fetches, scope=scope)
    assert type(compiled.value) is type(by_op.value)
    assert str(compiled.value) == str(by_op.value)


def test_a_raw_kernel_exception_names_its_op():
    program = _chain_program()
    exe = Executor()
    feed = {"x": np.ones(8, np.float32), "mask": np.ones(8, bool)}
    for _ in range(2):
        exe.run(program, feed=feed, fetch_list=["out"])
    (segment,) = _segments(exe)
    scale = segment.members[1]

    def broken(ctx, *args):
        raise ZeroDivisionError("boom")

    scale._fn = broken
    assert segment._arm()
    with pytest.raises(Fatal, match=r"`scale`.*boom"):
        exe.run(program, feed=feed, fetch_list=["out"])


def test_values_read_after_the_segment_are_stored():
    """A value made inside and read by a step outside (here: fetched and read again) is in its
    Variable; values used only inside are not kept."""
    program = _chain_program()
    exe = Executor()
    feed = {"x": np.ones(8, np.float32), "mask": np.ones(8, bool)}
    for _ in range(2):
        out, scaled = exe.run(program, feed=feed, fetch_list=["out", "scaled"])
    np.testing.assert_array_equal(scaled, np.full(8, 3.0, np.float32))
    local = exe._last_plan.local
    assert local.find_var("sel").value is None  # released: never stored
    assert isinstance(local.find_var("scaled").value, DenseTensor)


@pytest.mark.parametrize("model", ["bert_tiny", "transformer_tiny", "chain200_scale"])
def test_bound_kernels_give_the_same_bits(model):
    """FLAGS_kernel_bind (phi.core.bound): the segments call bound kernels; flipped between two
    runs, the next run re-generates the segment and the bits stay the same."""
    model_dir = FIXTURES / "models" / model
    scope = Scope()
    program, feeds, fetches = load_inference_model(model_dir / "inference", scope=scope)
    feed = _feeds(model_dir, feeds)
    exe = Executor()
    try:
        outs = {}
        for flag in (True, False, True):
            set_flags({"FLAGS_kernel_bind": flag})
            for _ in range(2):  # the first run plans (op by op), the second compiles
                got = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
            assert exe.last_stats.segment_ops == exe.last_stats.ops
            generated = [s._fn for s in _segments(exe)]
            # bound forms take no context: generated code names a c<i> only for unbound ones
            contexts = {n for fn in generated for n in fn.__globals__
                        if n[0] == "c" and n[1:].isdigit()}
            if not flag:
                assert len(contexts) == exe.last_stats.ops
            elif model == "chain200_scale":  # every op a float scale: all bound, written out
                assert not contexts
                assert not [n for fn in generated for n in fn.__code__.co_names
                            if n[0] == "f" and n[1:].isdigit()]  # no kernel call left
                # only the feed is guarded (as an exact ndarray of its dtype): every scale's
                # result is then one of the planned dtype and dims by construction
                assert [n for fn in generated for n in fn.__globals__
                        if n.startswith("T_")] == ["T_x0"]
            else:
                assert len(contexts) < exe.last_stats.ops
            if flag in outs:
                for a, b in zip(outs[flag], got, strict=True):
                    assert a.tobytes() == b.tobytes()
            outs[flag] = got
        for a, b in zip(outs[True], outs[False], strict=True):
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    finally:
        set_flags({"FLAGS_kernel_bind": True})


def _broadcast_chain():
    """x [2, 3] -> scale -> elementwise_add(y [3]) -> relu -> elementwise_multiply(z [2, 1])
    -> out [2, 3]: written-out ops only, with broadcasting."""
    desc = ProgramDesc()
    block = desc.global_block
    for name, shape in (("x", [2, 3]), ("y", [3]), ("z", [2, 1]), ("s", [2, 3]),
                        ("a", [2, 3]), ("r", [2, 3]), ("out", [2, 3])):
        block.create_var(name, dtype=DataType.FLOAT32, shape=shape)
    block.append_op("scale", {"X": ["x"]}, {"Out": ["s"]},
                    {"scale": 3.0, "bias": -1.0, "bias_after_scale": True})
    block.append_op("elementwise_add", {"X": ["s"], "Y": ["y"]}, {"Out": ["a"]}, {"axis": -1})
    block.append_op("relu", {"X": ["a"]}, {"Out": ["r"]}, {})
    block.append_op("elementwise_mul", {"X": ["r"], "Y": ["z"]}, {"Out": ["out"]}, {"axis": -1})
    return Program(desc)


def test_written_out_results_are_guarded_only_where_unproven():
    program = _broadcast_chain()
    exe = Executor()
    x = np.array([[-1.0, 0.5, 2.0], [0.0, -0.25, 1.5]], np.float32)
    y = np.array([0.5, -4.0, np.nan], np.float32)
    z = np.array([[2.0], [-0.0]], np.float32)
    want = np.fmax(x * np.float32(3.0) + np.float32(-1.0) + y, np.float32(0)) * z
    for _ in range(3):
        out = exe.run(program, feed={"x": x, "y": y, "z": z}, fetch_list=["out"])[0]
        assert out.tobytes() == want.tobytes()
    (segment,) = _segments(exe)
    assert segment.runs == 2
    guarded = sorted(n for n in segment._fn.__globals__ if n.startswith("T_"))
    # the three feeds read by written-out ops are checked as exact ndarrays of their dtype;
    # every result made from them is then proven (no guard after any op)
    assert guarded == ["T_x0", "T_x1", "T_x2"]
    assert "S_v0" not in segment._fn.__globals__
    # other feed dims: the feeds' guards bail out and the runners give the right answer
    x2, z2 = np.ones((4, 3), np.float32), np.full((4, 1), 0.5, np.float32)
    out = exe.run(program, feed={"x": x2, "y": y, "z": z2}, fetch_list=["out"])[0]
    # 1 * 3 - 1 = 2; + y: 2.5, -2 (relu: 0), NaN (relu, as fmax: 0); * 0.5
    assert out.tobytes() == np.tile(np.float32([1.25, 0.0, 0.0]), (4, 1)).tobytes()
