"""Plan-time conv -> batch_norm [-> relu/relu6] fusion: op-by-op results up to rounding (the
scale folded into the filter), parameters read on every run, and no fusion wherever an
intermediate is observable or the chain is not the inference form."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fluid_compat import Executor, Program, load_inference_model
from fluid_compat.framework import ProgramDesc
from fluid_compat.framework.scope import Scope
from fluid_compat.operators.fusion import ConvEpilogueStep
from phi.common import DataType
from phi.core.tensor import DenseTensor
from phi.flags import get_flags, set_flags
from tests.corpus_paths import FIXTURES

RNG = np.random.default_rng(11)
C = 6


@pytest.fixture(autouse=True)
def _fusion_on():
    set_flags({"FLAGS_fuse_conv_bn": True})
    yield
    set_flags({"FLAGS_fuse_conv_bn": True})


def _program(*, act="relu6", is_test=True, depthwise=False, extra_reader=None, layout="NCHW",
             residual=None):
    """x -> conv2d (3x3, pad 1) -> batch_norm -> [+ res] -> [act] -> out; ``extra_reader``: a
    scale op that also reads that intermediate ("conv" or "bn"); ``residual``: "right"
    (bn_out + res), "left" (res + bn_out) or "broadcast" (bn_out + res [C, 1, 1])."""
    desc = ProgramDesc()
    block = desc.global_block
    f32 = DataType.FLOAT32
    block.create_var("x", dtype=f32, shape=[-1, C, 8, 8])
    for name, shape in (("w", [C, 1 if depthwise else C, 3, 3]), ("mean", [C]), ("var", [C]),
                        ("scale", [C]), ("bias", [C])):
        block.create_var(name, dtype=f32, shape=shape, persistable=True)
    for name in ("conv_out", "bn_out", "saved_mean", "saved_var", "out", "side", "sum"):
        block.create_var(name, dtype=f32, shape=[-1, C, 8, 8])
    block.create_var("res", dtype=f32, shape=[C, 1, 1] if residual == "broadcast"
                     else [-1, C, 8, 8])
    block.append_op("depthwise_conv2d" if depthwise else "conv2d",
                    {"Input": ["x"], "Filter": ["w"]}, {"Output": ["conv_out"]},
                    {"strides": [1, 1], "paddings": [1, 1], "dilations": [1, 1],
                     "groups": C if depthwise else 1, "data_format": layout,
                     "padding_algorithm": "EXPLICIT"})
    block.append_op("batch_norm",
                    {"X": ["conv_out"], "Mean": ["mean"], "Variance": ["var"],
                     "Scale": ["scale"], "Bias": ["bias"]},
                    {"Y": ["bn_out"], "MeanOut": ["mean"], "VarianceOut": ["var"],
                     "SavedMean": ["saved_mean"], "SavedVariance": ["saved_var"]},
                    {"is_test": is_test, "epsilon": 1e-5, "momentum": 0.9,
                     "data_layout": layout})
    last = "bn_out"
    if residual is not None:
        pair = ["res", "bn_out"] if residual == "left" else ["bn_out", "res"]
        block.append_op("elementwise_add", {"X": pair[:1], "Y": pair[1:]}, {"Out": ["sum"]},
                        {"axis": -1})
        last = "sum"
    if act is not None:
        block.append_op(act, {"X": [last]}, {"Out": ["out"]}, {})
        last = "out"
    if extra_reader is not None:
        src = {"conv": "conv_out", "bn": "bn_out"}[extra_reader]
        block.append_op("scale", {"X": [src]}, {"Out": ["side"]}, {"scale": 2.0})
    return Program(desc), last


def _scope(depthwise=False):
    scope = Scope()
    values = {
        "w": RNG.standard_normal((C, 1 if depthwise else C, 3, 3)).astype(np.float32),
        "mean": RNG.standard_normal(C).astype(np.float32),
        "var": RNG.uniform(0.5, 2.0, C).astype(np.float32),
        "scale": RNG.standard_normal(C).astype(np.float32),
        "bias": RNG.standard_normal(C).astype(np.float32),
    }
    for name, value in values.items():
        scope.var(name).value = DenseTensor.from_numpy(value)
    return scope


def _fused_steps(exe) -> list[ConvEpilogueStep]:
    return [s for s, _, _ in exe._last_plan.steps if isinstance(s, ConvEpilogueStep)]


def _reference(program, scope, feed, fetch):
    """The same program op by op (fusion off), in a copy of the scope."""
    set_flags({"FLAGS_fuse_conv_bn": False})
    try:
        ref_scope = Scope()
        for name in ("w", "mean", "var", "scale", "bias"):
            ref_scope.var(name).value = scope.find_var(name).value
        return Executor().run(program, feed=feed, fetch_list=fetch, scope=ref_scope)
    finally:
        set_flags({"FLAGS_fuse_conv_bn": True})


def assert_close_to_op_by_op(out, ref):
    """Bitwise equal: a fused step repeats the members' float operations in their order (NaN
    payloads and signed zeros included)."""
    assert out.dtype == ref.dtype and out.shape == ref.shape
    assert out.tobytes() == ref.tobytes()


def _by_hand(x, scope, act, depthwise=False):
    """conv (the definition, float64) -> batch_norm with running statistics -> act."""
    p = {n: scope.find_var(n).value.numpy().astype(np.float64)
         for n in ("w", "mean", "var", "scale", "bias")}
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    n, c, h, w = x.shape
    out = np.zeros((n, C, h, w))
    for o in range(C):
        chans = [o] if depthwise else range(c)
        for i in range(3):
            for j in range(3):
                for k, ch in enumerate(chans):
                    out[:, o] += xp[:, ch, i:i + h, j:j + w] * p["w"][o, k, i, j]
    y = ((out - p["mean"][:, None, None]) / np.sqrt(p["var"][:, None, None] + 1e-5)
         * p["scale"][:, None, None] + p["bias"][:, None, None])
    if act == "relu":
        y = np.maximum(y, 0)
    elif act == "relu6":
        y = np.clip(y, 0, 6)
    return y


@pytest.mark.parametrize("act", [None, "relu", "relu6"])
@pytest.mark.parametrize("depthwise", [False, True])
def test_fused_chain_equals_op_by_op(act, depthwise):
    program, last = _program(act=act, depthwise=depthwise)
    scope = _scope(depthwise)
    x = RNG.standard_normal((2, C, 8, 8)).astype(np.float32)
    x[0, 0, 0, :3] = [np.nan, -0.0, np.inf]
    exe = Executor()
    runs = [exe.run(program, feed={"x": x}, fetch_list=[last], scope=scope)[0]
            for _ in range(3)]
    (step,) = _fused_steps(exe)
    assert [m.op.type for m in step.members] == [
        "depthwise_conv2d" if depthwise else "conv2d", "batch_norm", *([act] if act else [])]
    assert step.runs == 2  # the first run is op by op; the plan fuses after it
    ref = _reference(program, scope, {"x": x}, [last])[0]
    np.testing.assert_array_equal(runs[0], ref)  # the first run is op by op
    for out in runs[1:]:
        assert_close_to_op_by_op(out, ref)
    finite = np.isfinite(ref).all(axis=(1, 2, 3))
    assert not finite[0] and finite[1]
    np.testing.assert_allclose(runs[-1][1], _by_hand(x, scope, act, depthwise)[1], rtol=1e-4,
                               atol=1e-4)
    stats = exe.last_stats
    assert stats.ops == len(program.desc.global_block.ops)
    assert (stats.fused_steps, stats.fused_ops) == (1, len(step.members))


@pytest.mark.parametrize("kw", [{"is_test": False}, {"extra_reader": "conv"},
                                {"extra_reader": "bn"}])
def test_not_fused_when_an_intermediate_is_seen_or_training(kw):
    program, last = _program(**kw)
    scope = _scope()
    x = RNG.standard_normal((1, C, 8, 8)).astype(np.float32)
    exe = Executor()
    for _ in range(3):
        outs = exe.run(program, feed={"x": x}, fetch_list=[last], scope=scope)
    steps = _fused_steps(exe)
    if kw.get("extra_reader") == "bn":
        # conv -> batch_norm still fuse; the activation does not join (bn_out is read later)
        assert [[m.op.type for m in s.members] for s in steps] == [["conv2d", "batch_norm"]]
    else:
        assert steps == []
    assert_close_to_op_by_op(outs[0], _reference(program, scope, {"x": x}, [last])[0])


def test_fetching_an_intermediate_keeps_it():
    program, _ = _program()
    scope = _scope()
    x = RNG.standard_normal((1, C, 8, 8)).astype(np.float32)
    exe = Executor()
    for _ in range(3):
        conv_out, out = exe.run(program, feed={"x": x}, fetch_list=["conv_out", "out"],
                                scope=scope)
    assert _fused_steps(exe) == []
    ref_conv, ref_out = _reference(program, scope, {"x": x}, ["conv_out", "out"])
    np.testing.assert_array_equal(conv_out, ref_conv)
    np.testing.assert_array_equal(out, ref_out)


def test_new_batch_size_and_new_parameters_take_effect():
    program, last = _program()
    scope = _scope()
    exe = Executor()
    x = RNG.standard_normal((1, C, 8, 8)).astype(np.float32)
    for _ in range(3):
        exe.run(program, feed={"x": x}, fetch_list=[last], scope=scope)
    (step,) = _fused_steps(exe)
    x4 = RNG.standard_normal((4, C, 8, 8)).astype(np.float32)  # guards fail: op by op, re-arm
    out4 = exe.run(program, feed={"x": x4}, fetch_list=[last], scope=scope)[0]
    np.testing.assert_array_equal(out4, _reference(program, scope, {"x": x4}, [last])[0])
    assert exe.last_stats.fused_ops == 0  # that run went op by op
    assert step._conv is not None
    again = exe.run(program, feed={"x": x4}, fetch_list=[last], scope=scope)[0]
    assert step.runs == 3  # fused again at the new size
    assert exe.last_stats.fused_ops == 3
    assert_close_to_op_by_op(again, out4)
    # parameters replaced (as loading or an optimizer does) and mutated in place: both seen
    scope.find_var("scale").value = DenseTensor.from_numpy(np.full(C, 0.5, np.float32))
    scope.find_var("mean").value.data[:] = 0.25
    out = exe.run(program, feed={"x": x4}, fetch_list=[last], scope=scope)[0]
    assert step.runs == 4
    assert_close_to_op_by_op(out, _reference(program, scope, {"x": x4}, [last])[0])
    np.testing.assert_allclose(out, _by_hand(x4, scope, "relu6"), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("depthwise", [False, True])
def test_nhwc_chain_fuses_and_equals_nchw(depthwise):
    nchw, last = _program(depthwise=depthwise)
    nhwc, _ = _program(depthwise=depthwise, layout="NHWC")
    scope = _scope(depthwise)
    x = RNG.standard_normal((2, C, 8, 8)).astype(np.float32)
    x_nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    exe = Executor()
    for _ in range(3):
        out = exe.run(nhwc, feed={"x": x_nhwc}, fetch_list=[last], scope=scope)[0]
    assert len(_fused_steps(exe)) == 1
    assert_close_to_op_by_op(out, _reference(nhwc, scope, {"x": x_nhwc}, [last])[0])
    want = _reference(nchw, scope, {"x": x}, [last])[0]
    assert_close_to_op_by_op(out, np.ascontiguousarray(want.transpose(0, 2, 3, 1)))


def test_flag_turned_on_later_fuses_then():
    program, last = _program()
    scope = _scope()
    exe = Executor()
    x = RNG.standard_normal((1, C, 8, 8)).astype(np.float32)
    set_flags({"FLAGS_fuse_conv_bn": False})
    for _ in range(2):
        exe.run(program, feed={"x": x}, fetch_list=[last], scope=scope)
    assert _fused_steps(exe) == []
    set_flags({"FLAGS_fuse_conv_bn": True})
    for _ in range(2):
        out = exe.run(program, feed={"x": x}, fetch_list=[last], scope=scope)[0]
    (step,) = _fused_steps(exe)
    assert step.runs == 2  # the runners learned in the runs before: fused from the first on
    assert_close_to_op_by_op(out, _reference(program, scope, {"x": x}, [last])[0])


def test_progress_counts_every_op_of_a_fused_step():
    program, last = _program()
    scope = _scope()
    exe = Executor()
    x = RNG.standard_normal((1, C, 8, 8)).astype(np.float32)
    exe.run(program, feed={"x": x}, fetch_list=[last], scope=scope)
    seen = []
    exe.run(program, feed={"x": x}, fetch_list=[last], scope=scope,
            progress=lambda done, total: seen.append((done, total)))
    assert seen == [(3, 3)]


def test_flag_off_runs_op_by_op():
    program, last = _program()
    scope = _scope()
    exe = Executor()
    x = RNG.standard_normal((1, C, 8, 8)).astype(np.float32)
    for _ in range(2):
        exe.run(program, feed={"x": x}, fetch_list=[last], scope=scope)
    (step,) = _fused_steps(exe)
    assert step.runs == 1
    set_flags({"FLAGS_fuse_conv_bn": False})
    out = exe.run(program, feed={"x": x}, fetch_list=[last], scope=scope)[0]
    assert step.runs == 1 and all(m.runs == 3 for m in step.members)
    assert exe.last_stats.fused_ops == 0
    np.testing.assert_array_equal(out, _reference(program, scope, {"x": x}, [last])[0])


@pytest.mark.parametrize("model", ["mobilenet_v3_small", "resnet_tiny", "densenet_tiny"])
def test_paddle_models_fuse_and_still_match_paddle(model):
    model_dir = FIXTURES / "models" / model
    meta = json.loads((model_dir / "meta.json").read_text())
    scope = Scope()
    program, feeds, fetches = load_inference_model(model_dir / "inference", scope=scope)
    feed = {f["name"]: np.load(model_dir / f["file"]) for f in meta["feeds"]}
    exe = Executor()
    first = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    again = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    assert _fused_steps(exe)
    for f, a, b in zip(meta["fetches"], first, again, strict=True):
        assert_close_to_op_by_op(b, a)
        np.testing.assert_allclose(b, np.load(model_dir / f["file"]), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("act", [None, "relu", "relu6"])
@pytest.mark.parametrize(("depthwise", "residual"), [(False, None), (True, None),
                                                     (False, "left")])
def test_compiled_epilogue_equals_op_by_op(depthwise, residual, act, threads, monkeypatch):
    # after the compiled depthwise loop or Winograd, the compiled bn_affine_act (with a
    # residual bn_affine_add_act) writes y * new_scale + new_bias (+ res) (+ act): the bits of
    # op by op, split over threads or not
    from phi.kernels.funcs import jit

    loops = jit.kernels()
    if loops is None:
        pytest.skip("numba is not installed")
    applied, conv = [], []
    for name, log in (("bn_affine_add_act" if residual else "bn_affine_act", applied),
                      ("depthwise" if depthwise else "winograd_output", conv)):
        fn = getattr(loops, name)
        monkeypatch.setattr(loops, name, lambda *a, fn=fn, log=log: log.append(a) or fn(*a))
    monkeypatch.setattr(jit, "MIN_SPLIT_WORK", 0)
    program, last = _program(act=act, depthwise=depthwise, residual=residual)
    scope = _scope(depthwise)
    feed = {"x": RNG.standard_normal((2, C, 8, 8)).astype(np.float32)}  # finite: Winograd
    if residual:
        feed["res"] = RNG.standard_normal((2, C, 8, 8)).astype(np.float32)
        feed["res"][0, 0, 0, :3] = [np.nan, -0.0, np.inf]
    saved = get_flags(["FLAGS_kernel_threads"])
    set_flags({"FLAGS_kernel_threads": threads})
    try:
        exe = Executor()
        runs = [exe.run(program, feed=feed, fetch_list=[last], scope=scope)[0]
                for _ in range(3)]
    finally:
        set_flags(saved)
    (step,) = _fused_steps(exe)
    assert step.runs == 2
    code = {None: 0, "relu": 1, "relu6": 2}[act]
    # 2 fused runs, each in `threads` parts (act is the loop's third argument from the end)
    assert [a[-3] for a in applied] == [code] * (2 * threads)
    assert conv  # the compiled depthwise loop or Winograd ran
    ref = _reference(program, scope, feed, [last])[0]
    for out in runs:
        assert_close_to_op_by_op(out, ref)


@pytest.mark.parametrize("act", [None, "relu", "relu6"])
@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize(("residual_flag", "compiled"), [(True, True), (True, False),
                                                         (False, True)])
def test_residual_add_joins_the_step(act, side, residual_flag, compiled):
    # conv -> batch_norm -> + res -> [act]: one step, the bits of op by op (the residual
    # either operand of the add), in the compiled epilogue or numpy's passes; with
    # FLAGS_fuse_conv_bn_residual off the step ends at bn
    saved = get_flags(["FLAGS_fuse_conv_bn_residual", "FLAGS_kernel_numba"])
    set_flags({"FLAGS_fuse_conv_bn_residual": residual_flag, "FLAGS_kernel_numba": compiled})
    try:
        program, last = _program(act=act, residual=side)
        scope = _scope()
        x = RNG.standard_normal((2, C, 8, 8)).astype(np.float32)
        res = RNG.standard_normal((2, C, 8, 8)).astype(np.float32)
        res[1, 2, 3, :4] = [np.nan, -0.0, np.inf, -np.inf]
        feed = {"x": x, "res": res}
        exe = Executor()
        runs = [exe.run(program, feed=feed, fetch_list=[last], scope=scope)[0]
                for _ in range(3)]
        (step,) = _fused_steps(exe)
        members = [m.op.type for m in step.members]
        ref = _reference(program, scope, feed, [last])[0]
    finally:
        set_flags(saved)
    if residual_flag:
        assert members == ["conv2d", "batch_norm", "elementwise_add", *([act] if act else [])]
        assert step._residual is not None and step.runs == 2
    else:
        assert members == ["conv2d", "batch_norm"]
    for out in runs:
        assert_close_to_op_by_op(out, ref)
    y = _by_hand(x, scope, None)[1] + res[1]
    if act == "relu":
        y = np.fmax(y, 0)  # relu: NaN -> 0
    elif act == "relu6":
        y = np.clip(y, 0, 6)
    np.testing.assert_allclose(runs[-1][1], y, rtol=1e-4, atol=1e-4)


def test_residual_add_not_fused_when_it_broadcasts_or_bn_out_is_read():
    for kw in ({"residual": "broadcast"}, {"residual": "right", "extra_reader": "bn"}):
        program, last = _program(act="relu", **kw)
        scope = _scope()
        x = RNG.standard_normal((1, C, 8, 8)).astype(np.float32)
        res = RNG.standard_normal((C, 1, 1) if kw["residual"] == "broadcast"
                                  else (1, C, 8, 8)).astype(np.float32)
        feed = {"x": x, "res": res}
        exe = Executor()
        for _ in range(3):
            out = exe.run(program, feed=feed, fetch_list=[last], scope=scope)[0]
        assert all("elementwise_add" not in [m.op.type for m in s.members]
                   for s in _fused_steps(exe))
        assert_close_to_op_by_op(out, _reference(program, scope, feed, [last])[0])


def test_residual_that_starts_to_broadcast_runs_op_by_op():
    # planned with res of Y's dims; then x's batch shrinks while res keeps its own: the add
    # broadcasts op by op, so the step must not take it (it raised a bare numpy ValueError on
    # the runs after the first fallback, when it re-armed with the add's new dims)
    program, last = _program(act="relu", residual="left")
    scope = _scope()
    exe = Executor()
    res = RNG.standard_normal((2, C, 8, 8)).astype(np.float32)
    for batch in (2, 2, 2, 1, 1, 1, 2, 2):
        feed = {"x": RNG.standard_normal((batch, C, 8, 8)).astype(np.float32), "res": res}
        out = exe.run(program, feed=feed, fetch_list=[last], scope=scope)[0]
        assert out.shape == (2, C, 8, 8)
        assert_close_to_op_by_op(out, _reference(program, scope, feed, [last])[0])
    (step,) = _fused_steps(exe)
    assert step.last_fused  # back to the planned dims: fused again


def test_residual_with_a_lod_keeps_it():
    # elementwise_add gives its X's LoD to its output: a residual fed with a LoD runs op by op
    program, last = _program(act=None, residual="left")
    scope = _scope()
    exe = Executor()
    x = RNG.standard_normal((2, C, 8, 8)).astype(np.float32)
    res = RNG.standard_normal((2, C, 8, 8)).astype(np.float32)
    for _ in range(2):
        exe.run(program, feed={"x": x, "res": res}, fetch_list=[last], scope=scope)
    (step,) = _fused_steps(exe)
    assert step.last_fused
    out = exe.run(program, feed={"x": x, "res": (res, [[0, 1, 2]])}, fetch_list=[last],
                  scope=scope, return_numpy=False)[0]
    assert out.lod == ((0, 1, 2),) and not step.last_fused
    np.testing.assert_array_equal(out.numpy(), _reference(program, scope, {"x": x, "res": res},
                                                          [last])[0])


def test_residual_of_other_dims_runs_the_members_then_rearms():
    program, last = _program(act="relu", residual="right")
    scope = _scope()
    exe = Executor()
    for batch in (1, 1, 1, 3, 3, 3):
        x = RNG.standard_normal((batch, C, 8, 8)).astype(np.float32)
        feed = {"x": x, "res": RNG.standard_normal((batch, C, 8, 8)).astype(np.float32)}
        out = exe.run(program, feed=feed, fetch_list=[last], scope=scope)[0]
        assert_close_to_op_by_op(out, _reference(program, scope, feed, [last])[0])
    (step,) = _fused_steps(exe)
    assert step.last_fused


def test_misaligned_statistics_take_numpys_passes(monkeypatch):
    # the compiled epilogue takes aligned arrays only (the ahead-of-time build refuses others
    # and may have no JIT behind it): a misaligned statistic runs the epilogue as numpy's
    # passes, with op by op's result
    from phi.kernels.funcs import jit

    loops = jit.kernels()
    if loops is None:
        pytest.skip("numba is not installed")
    applied = []
    fn = loops.bn_affine_act
    monkeypatch.setattr(loops, "bn_affine_act", lambda *a: applied.append(a) or fn(*a))
    program, last = _program(act="relu")
    scope = _scope()
    feed = {"x": RNG.standard_normal((2, C, 8, 8)).astype(np.float32)}
    exe = Executor()
    exe.run(program, feed=feed, fetch_list=[last], scope=scope)  # op by op (batch_norm's
    # MeanOut, the same variable as its Mean, then holds a fresh array)
    mean = scope.find_var("mean").value.data
    buf = np.frombuffer(bytearray(mean.nbytes + 1), np.float32, mean.size, 1)
    buf[...] = mean
    assert not buf.flags.aligned
    scope.var("mean").value = DenseTensor.from_numpy(buf)
    runs = [exe.run(program, feed=feed, fetch_list=[last], scope=scope)[0] for _ in range(2)]
    (step,) = _fused_steps(exe)
    assert step.runs == 2 and applied == []
    assert scope.find_var("mean").value.data is buf
    ref = _reference(program, scope, feed, [last])[0]
    for out in runs:
        assert_close_to_op_by_op(out, ref)


def _three_runs():
    """The conv -> batch_norm -> relu program run three times in a fresh executor:
    (executor, program, fetched name, scope, feed, the three outputs)."""
    program, last = _program(act="relu")
    scope = _scope()
    feed = {"x": RNG.standard_normal((2, C, 8, 8)).astype(np.float32)}
    exe = Executor()
    outs = [exe.run(program, feed=feed, fetch_list=[last], scope=scope)[0] for _ in range(3)]
    return exe, program, last, scope, feed, outs


def test_kernel_bind_turned_off_rearms_the_step(monkeypatch):
    # FLAGS_kernel_bind off after fused runs: the step re-arms on its next run (bound.epoch)
    # and calls the conv kernel with its attributes again, still op by op's result
    from phi.kernels import conv

    exe, program, last, scope, feed, _outs = _three_runs()
    (step,) = _fused_steps(exe)
    assert step.runs == 2 and step._conv_fn is not None
    compute = []
    real = conv.conv2d_compute  # what the step calls once re-armed (resolved by _arm)
    monkeypatch.setattr(conv, "conv2d_compute", lambda *a: compute.append(1) or real(*a))
    saved = get_flags(["FLAGS_kernel_bind"])
    set_flags({"FLAGS_kernel_bind": False})
    try:
        out = exe.run(program, feed=feed, fetch_list=[last], scope=scope)[0]
    finally:
        set_flags(saved)
    assert step.runs == 3 and step._conv_fn is None and compute == [1]
    ref = _reference(program, scope, feed, [last])[0]
    assert_close_to_op_by_op(out, ref)


@pytest.mark.parametrize("reexport", [False, True])
def test_a_plugin_batch_norm_is_never_bypassed(reexport, monkeypatch):
    # a plug-in's batch_norm registered in the built-in's place (re-exported as the module's
    # attribute too, as plug-ins do): its own arithmetic runs, no fused step reproduces the
    # built-in one
    from phi.core.kernel import Kernel
    from phi.core.registry import kernel_factory
    from phi.kernels import batch_norm as norm

    factory = kernel_factory()
    saved = {name: dict(factory.kernels_of(name)) for name in ("batch_norm", "batch_norm_infer")}

    def marked(builtin):
        def plugin(ctx, x, *rest):  # Y + 1000: the plug-in's mark
            out = builtin(ctx, x, *rest)
            return (out[0] + 1000, *out[1:]) if isinstance(out, tuple) else out + 1000
        return plugin

    try:
        for name, kernels in saved.items():
            plugin = marked(getattr(norm, name))
            for key, k in kernels.items():
                factory.unregister(name, key)
                factory.register(Kernel(k.name, k.key, plugin, k.args_def))
            if reexport:
                monkeypatch.setattr(norm, name, plugin)
        exe, *_rest, outs = _three_runs()
        assert _fused_steps(exe) == []
        for out in outs:  # relu(Y + 1000): every value at least ~1000 - |Y|
            assert float(np.min(out)) > 900
    finally:
        for name, kernels in saved.items():
            for key in list(factory.kernels_of(name)):
                factory.unregister(name, key)
            for k in kernels.values():
                factory.register(k)


def test_a_wrapper_on_the_module_attribute_keeps_the_step(monkeypatch):
    # a test's counting wrapper on phi.kernels.batch_norm.batch_norm_infer: the registered kernel is
    # still the built-in, so the chain still fuses
    from phi.kernels import batch_norm as norm

    for name in ("batch_norm", "batch_norm_infer"):
        real = getattr(norm, name)
        monkeypatch.setattr(norm, name, lambda *a, _real=real: _real(*a))
    exe, *_rest = _three_runs()
    (step,) = _fused_steps(exe)
    assert step.runs == 2
