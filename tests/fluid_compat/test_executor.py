"""Running real Paddle programs: corpus models and single-op programs through the Executor,
planned re-runs, variable release, and every kind of bad input giving one typed error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fluid_compat import Executor, FeedError, Program, load_inference_model
from fluid_compat.framework import ProgramDesc
from fluid_compat.framework.scope import Scope
from fluid_compat.io import save_inference_model
from phi.core.errors import NotFound, PhiError, Unavailable
from tests.corpus_paths import CORPUS, FIXTURES

HERE = Path(__file__).resolve().parent
LOCAL_MLP = HERE / "framework" / "data" / "mlp"


def corpus_models() -> list[Path]:
    if not (CORPUS / "models").is_dir():
        return []
    return sorted(p for p in (CORPUS / "models").iterdir() if (p / "meta.json").is_file())


def _run_model(model_dir: Path, scope: Scope | None = None):
    meta = json.loads((model_dir / "meta.json").read_text())
    scope = scope or Scope()
    program, feeds, fetches = load_inference_model(model_dir / "inference", scope=scope)
    feed = {f["name"]: np.load(model_dir / f["file"]) for f in meta["feeds"]}
    exe = Executor()
    outs = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    return meta, outs, exe, program, feed, scope


@pytest.mark.parametrize("model_dir", corpus_models(), ids=lambda p: p.name)
def test_corpus_model_matches_paddle(model_dir):
    meta, outs, exe, program, feed, scope = _run_model(model_dir)
    assert [f["name"] for f in meta["fetches"]] == program.fetch_target_names()
    for f, out in zip(meta["fetches"], outs, strict=True):
        ref = np.load(model_dir / f["file"])
        assert out.shape == ref.shape and out.dtype == ref.dtype
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)
    # a planned re-run replays every op's cached decision and gives the same answer
    again = exe.run(program, feed=feed, fetch_list=program.fetch_target_names(), scope=scope)
    for a, b in zip(outs, again, strict=True):
        np.testing.assert_array_equal(a, b)
    (plan,) = exe.plans()
    assert all(r.fast_runs >= 1 for r in plan.runners)
    assert exe.last_stats.phi == len(plan.runners) and exe.last_stats.fallback == 0


def test_local_mlp_matches_paddle_without_the_corpus():
    """The copy of the corpus mlp (with Paddle's recorded input and outputs) in tests/."""
    scope = Scope()
    program, feeds, fetches = load_inference_model(LOCAL_MLP / "inference", scope=scope)
    assert feeds == ["x"] and len(fetches) == 2
    outs = Executor().run(program, feed={"x": np.load(LOCAL_MLP / "input_x.npy")},
                          fetch_list=fetches, scope=scope)
    for i, out in enumerate(outs):
        np.testing.assert_allclose(out, np.load(LOCAL_MLP / f"output_{i}.npy"), rtol=1e-4,
                                   atol=1e-4)


def test_intermediates_are_released_and_parameters_stay():
    model = corpus_models()[0] if corpus_models() else None
    if model is None:
        pytest.skip("corpus absent")
    meta, outs, exe, program, feed, scope = _run_model(model)
    (plan,) = exe.plans()
    released = [v for group in plan.release for v in group]
    assert released and all(v.value is None for v in released)
    for var in program.desc.global_block.vars.values():
        if var.persistable and var.type == 7:
            assert scope.find_var(var.name).value is not None


# -- single-op programs from Paddle's own bytes ------------------------------------------------

def _single_op_cases() -> list[str]:
    if not (CORPUS / "single_ops").is_dir():
        return []
    from tests.fluid_compat.operators.corpus_cases import ISSUE3_OPS

    names = []
    for p in sorted((CORPUS / "single_ops").glob("*.json")):
        if p.name == "index.json":
            continue
        c = json.loads(p.read_text())
        nn_ops = {"conv2d", "depthwise_conv2d", "pool2d", "batch_norm", "flatten_contiguous_range",
                  "hard_swish", "log_softmax", "dropout"}
        if c["status"] == "ok" and (c["op_type"] in ISSUE3_OPS or c["op_type"] in nn_ops):
            names.append(p.stem)
    return names


@pytest.mark.parametrize("name", _single_op_cases())
def test_single_op_program_desc_runs_through_the_executor(name):
    case = json.loads((CORPUS / "single_ops" / f"{name}.json").read_text())
    with np.load(CORPUS / "single_ops" / f"{name}.npz") as z:
        arrays = {k: z[k] for k in z.files}
    program = Program.parse_from_string(arrays["program_desc"].tobytes())
    feed = {i["var"]: arrays[i["npz_key"]] for items in case["inputs"].values() for i in items}
    wanted = [(i["var"], arrays[i["npz_key"]], i.get("tolerance") or {})
              for items in case["outputs"].values() for i in items
              if i.get("npz_key") in arrays]
    outs = Executor().run(program, feed=feed, fetch_list=[w[0] for w in wanted], scope=Scope())
    for (var, ref, tol), out in zip(wanted, outs, strict=True):
        assert out.shape == ref.shape and out.dtype == ref.dtype, var
        if np.issubdtype(ref.dtype, np.inexact):
            np.testing.assert_allclose(out, ref, rtol=tol.get("rtol", 1e-5),
                                       atol=tol.get("atol", 1e-6))
        else:
            np.testing.assert_array_equal(out, ref)


# -- bad input -------------------------------------------------------------------------------

@pytest.fixture()
def mlp_copy(tmp_path):
    dst = tmp_path / "mlp"
    shutil.copytree(LOCAL_MLP, dst)
    return dst


def test_missing_extra_and_wrong_feeds(mlp_copy):
    program, feeds, fetches = load_inference_model(mlp_copy / "inference", scope=Scope())
    exe = Executor()
    x = np.zeros((4, 16), np.float32)
    with pytest.raises(FeedError, match=r"missing feed for \['x'\]"):
        exe.run(program, feed={}, scope=Scope())
    with pytest.raises(FeedError, match=r"feed names \['y'\] are not feed targets"):
        exe.run(program, feed={"x": x, "y": x}, scope=Scope())
    with pytest.raises(FeedError, match="feed `x` has dtype float64, the program expects float32"):
        exe.run(program, feed={"x": x.astype(np.float64)}, scope=Scope())
    with pytest.raises(FeedError, match=r"feed `x` has shape \[4, 16, 1\], the program expects"):
        exe.run(program, feed={"x": x[..., None]}, scope=Scope())


def test_unknown_op_type_names_index_type_and_close_names(mlp_copy):
    desc = ProgramDesc.load(mlp_copy / "inference.pdmodel")
    op = desc.global_block.ops[3]
    index, old = 3, op.type
    op.type = "relux"
    with pytest.raises(NotFound, match=rf"op #{index} `relux`: .*Did you mean: relu"):
        Executor().run(Program(desc), feed={"x": np.zeros((4, 16), np.float32)}, scope=Scope())
    assert old == "relu"


def test_op_without_kernel_is_refused_before_anything_runs(mlp_copy):
    desc = ProgramDesc.load(mlp_copy / "inference.pdmodel")
    block = desc.global_block
    # an op the bridge describes (OpProto) but that no CPU program can run (a primitive op)
    block.insert_op(2, "exp_p", {"X": ["x"]}, {"Y": ["x_exp"]}, {})
    block.create_var("x_exp")
    scope = Scope()
    with pytest.raises(Unavailable, match=r"op #2 `exp_p` cannot run .* primitive op .*"
                                          r"Nothing was run"):
        Executor().run(Program(desc), feed={"x": np.zeros((4, 16), np.float32)}, scope=scope)
    assert scope.kids == ()  # nothing was planned into the scope


def test_truncated_or_corrupt_files_and_bad_parameters(mlp_copy):
    model = mlp_copy / "inference.pdmodel"
    params = mlp_copy / "inference.pdiparams"
    good_model, good_params = model.read_bytes(), params.read_bytes()
    cases = [
        (model, good_model[: len(good_model) // 2], "inference.pdmodel"),
        (model, b"\x07" + good_model[1:], "inference.pdmodel"),
        (params, good_params[:-3], "inference.pdiparams"),
        (params, good_params + b"\0\0\0\0", "inference.pdiparams"),
    ]
    for path, data, name in cases:
        model.write_bytes(good_model)
        params.write_bytes(good_params)
        path.write_bytes(data)
        scope = Scope()
        with pytest.raises(PhiError, match=name):
            load_inference_model(mlp_copy / "inference", scope=scope)
        assert scope.local_var_names() == []  # nothing half-loaded


def test_parameter_shape_mismatch_names_the_variable(mlp_copy, tmp_path):
    scope = Scope()
    program, _, _ = load_inference_model(mlp_copy / "inference", scope=scope)
    name = next(v.name for v in program.desc.global_block.vars.values() if v.persistable
                and v.type == 7)
    t = scope.find_var(name).value
    t.data = np.zeros((*t.dims, 2), t.data.dtype)
    from fluid_compat.framework.tensor_io import save_combined_params

    params = {n: scope.find_var(n).value.numpy() for n in scope.local_var_names()}
    with pytest.raises(PhiError, match=name):
        save_combined_params(str(tmp_path / "bad.pdiparams"), program.desc, params)


def test_save_then_load_round_trips(mlp_copy, tmp_path):
    scope = Scope()
    program, feeds, fetches = load_inference_model(mlp_copy / "inference", scope=scope)
    save_inference_model(tmp_path / "again" / "inference", program, scope)
    assert (tmp_path / "again" / "inference.pdmodel").read_bytes() == (
        mlp_copy / "inference.pdmodel").read_bytes()
    assert (tmp_path / "again" / "inference.pdiparams").read_bytes() == (
        mlp_copy / "inference.pdiparams").read_bytes()


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_corrupted_real_files_only_raise_typed_errors(mlp_copy, data):
    which = data.draw(st.sampled_from(["inference.pdmodel", "inference.pdiparams"]))
    path = mlp_copy / which
    original = (LOCAL_MLP / which).read_bytes()
    cut = data.draw(st.integers(0, len(original)))
    mode = data.draw(st.sampled_from(["truncate", "flip"]))
    if mode == "truncate":
        corrupted = original[:cut]
    else:
        pos = min(cut, len(original) - 1)
        corrupted = original[:pos] + bytes([original[pos] ^ 0xFF]) + original[pos + 1:]
    path.write_bytes(corrupted)
    other = "inference.pdiparams" if which == "inference.pdmodel" else "inference.pdmodel"
    (mlp_copy / other).write_bytes((LOCAL_MLP / other).read_bytes())
    scope = Scope()
    try:
        program, feeds, _ = load_inference_model(mlp_copy / "inference", scope=scope)
        Executor().run(program, feed={feeds[0]: np.zeros((4, 16), np.float32)} if feeds else {},
                       scope=scope)
    except PhiError:
        pass


def test_progress_callback_sees_every_op():
    seen = []
    scope = Scope()
    program, feeds, fetches = load_inference_model(LOCAL_MLP / "inference", scope=scope)
    Executor().run(program, feed={"x": np.zeros((4, 16), np.float32)}, scope=scope,
                   progress=lambda done, total: seen.append((done, total)))
    n = len([op for op in program.desc.global_block.ops if op.type not in ("feed", "fetch")])
    assert seen == [(i, n) for i in range(1, n + 1)]


def test_non_numeric_feed_names_the_feed():
    scope = Scope()
    program, _, _ = load_inference_model(LOCAL_MLP / "inference", scope=scope)
    with pytest.raises(FeedError, match="feed `x` is not a numeric array"):
        Executor().run(program, feed={"x": [[object()]]}, scope=scope)


def test_feed_and_fetch_targets_are_found_once_per_program_state(monkeypatch):
    """Runs reuse the program's (feed, fetch) targets; an op added or a program marked changed
    finds them again."""
    model_dir = FIXTURES / "models" / "bert_tiny"
    scope = Scope()
    program, feeds, fetches = load_inference_model(model_dir / "inference", scope=scope)
    feed = {n: np.load(model_dir / f"input_{n}.npy") for n in feeds}
    scans = []
    find = type(program)._find_targets
    monkeypatch.setattr(type(program), "_find_targets",
                        lambda self: scans.append(1) or find(self))
    exe = Executor()
    for _ in range(3):
        exe.run(program, feed=feed, scope=scope)
    assert len(scans) == 1
    program.mark_changed()
    exe.run(program, feed=feed, scope=scope)
    assert len(scans) == 2
    block = program.desc.global_block  # a fetch op added, the program not marked changed
    block.create_var("fetch_extra", dtype=block.find_var(fetches[0]).dtype)
    block.append_op("fetch", {"X": [fetches[0]]}, {"Out": ["fetch_extra"]},
                    {"col": len(fetches)})
    assert program._targets()[1] == (*fetches, fetches[0])  # the op count changed: found
    assert len(scans) == 3
    # the last op replaced by another (the same op count; the removed op freed first, so
    # that the new one may take its address): found again
    col = block.remove_op(block.num_ops - 1).attr("col")
    block.create_var("fetch_feed", dtype=block.find_var(feeds[0]).dtype)
    block.append_op("fetch", {"X": [feeds[0]]}, {"Out": ["fetch_feed"]}, {"col": col})
    assert program._targets()[1] == (*fetches, feeds[0])
    assert len(scans) == 4
