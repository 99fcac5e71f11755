"""Programs with loops, tensor arrays and nested control flow, saved and run by Paddle 2.6.2
(tools/fixtures/gen_loop_models.py): a paddle.nn.BeamSearchDecoder + dynamic_decode, a
dy2static greedy decode with an early break (while -> conditional_block -> select_input), an
RNN on paddle.static.nn.while_loop and tensor arrays, lod_array_length inside a while, a
conditional_block inside a while step, pylayer / conditional_block_infer programs, and the edges
of the tensor-array ops (tests/fixtures/tensor_array/<case>/).

Every recorded run is replayed through load_inference_model + Executor in a fresh Scope (Paddle
recorded each run in a fresh scope) and must give Paddle's outputs: dtype and shape exact, float
allclose(rtol=1e-5, atol=1e-5), integers and bools equal. A case whose meta.json carries
"expected_error" must raise, with the recorded facts checked in the message."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import Executor, load_inference_model
from fluid_compat.framework.scope import Scope

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MODELS = FIXTURES / "models"
TENSOR_ARRAY = FIXTURES / "tensor_array"

LOOP_MODELS = [
    "beam_search_decoder",
    "greedy_decoder_break",
    "while_loop_rnn",
    "lod_array_length_loop",
    "nested_cond_in_while",
    "nested_cond_in_while_local",
    "pylayer_program",
    "conditional_block_infer",
    # the same saved programs with every while's is_test set to False (Paddle's training-mode
    # while: a new scope per step); Paddle gives the same outputs and errors
    "greedy_decoder_break_is_test_false",
    "nested_cond_in_while_is_test_false",
    "nested_cond_in_while_local_is_test_false",
    "beam_search_decoder_lstm",
    "while_in_cond",
]


def _tensor_array_cases() -> list[str]:
    if not TENSOR_ARRAY.is_dir():
        return []
    return sorted(p.name for p in TENSOR_ARRAY.iterdir() if (p / "meta.json").is_file())


def _meta(d: Path) -> dict:
    return json.loads((d / "meta.json").read_text())


def _runs(d: Path) -> list[tuple[str, dict, list]]:
    out = []
    for run in _meta(d)["runs"]:
        feed = {name: np.load(d / item["file"]) for name, item in run["inputs"].items()}
        outs = [np.load(d / item["file"]) for item in run["outputs"]]
        out.append((run["label"], feed, outs))
    return out


def _error_runs(d: Path) -> list[tuple[str, dict, str]]:
    out = []
    for run in _meta(d).get("error_runs", []):
        feed = {name: np.load(d / item["file"]) for name, item in run["inputs"].items()}
        out.append((run["label"], feed, run["expected_error"]))
    return out


def _paddle_error_class(text: str) -> str | None:
    """"(PreconditionNotMet) ..." -> "PreconditionNotMet"; "InvalidArgumentError: ..." ->
    "InvalidArgument"."""
    m = re.match(r"\((\w+)\)|(\w+?)(Error)?:", text)
    return (m.group(1) or m.group(2)) if m else None


def _run_once(d: Path, feed: dict) -> list:
    scope = Scope()
    program, _, fetches = load_inference_model(d / "inference", scope=scope)
    return Executor().run(program, feed=feed, fetch_list=fetches, scope=scope)


def _assert_outputs(d: Path, label: str, got: list, wanted: list) -> None:
    assert len(got) == len(wanted), f"{d.name} [{label}]: {len(got)} fetches"
    for i, (g, ref) in enumerate(zip(got, wanted, strict=True)):
        g = np.asarray(g)
        where = f"{d.name} [{label}] fetch {i}"
        assert g.dtype == ref.dtype, f"{where}: dtype {g.dtype}, Paddle {ref.dtype}"
        assert g.shape == ref.shape, f"{where}: shape {g.shape}, Paddle {ref.shape}"
        if ref.dtype.kind in "fc":
            np.testing.assert_allclose(g, ref, rtol=1e-5, atol=1e-5, err_msg=where)
        else:
            np.testing.assert_array_equal(g, ref, err_msg=where)


# Paddle runs where the bridge deliberately differs (docs/control-flow.md, "Deliberate
# deviations"): case -> {run label: what the bridge does instead}. Each is checked as written.
DEVIATIONS: dict[str, dict[str, dict]] = {
    # Paddle's read_from_array leaves Out without memory past the end (its scale op then fails);
    # the bridge raises OutOfRange at the read itself
    "ta_read_past_end": {
        label: {"raises": "OutOfRange"}
        for label in ("i=2: one past the end", "i=5: past the end", "i=-1: negative")
    },
    # Paddle 2.6.2 leaves OutIndex without memory; the bridge fills it as Paddle's source means
    # it: each step's size along axis, int32. Hand-worked: steps [2, 3] and [2, 1], axis 1.
    "ta_out_index": {"uniform": {"outputs": {1: np.array([3, 1], np.int32)}}},
}


def test_fixtures_present_and_small():
    for m in LOOP_MODELS:
        d = MODELS / m
        size = sum(f.stat().st_size for f in d.iterdir())
        assert size < 400 * 1024, f"{m}: {size} bytes"
        assert len(_meta(d)["runs"]) >= 2, m


@pytest.mark.parametrize("model", LOOP_MODELS)
def test_loop_program_matches_paddle(model):
    d = MODELS / model
    for label, feed, wanted in _runs(d):
        _assert_outputs(d, label, _run_once(d, feed), wanted)


def _assert_raises_like_paddle(d: Path, label: str, feed: dict, expected: str) -> None:
    """Paddle raised `expected` on this run: ours must raise too, an error of the same class
    (phi.core.errors names them as Paddle does)."""
    with pytest.raises(Exception) as info:  # the class is checked below
        _run_once(d, feed)
    wanted = _paddle_error_class(expected)
    names = {c.__name__ for c in type(info.value).__mro__}
    if wanted == "PreconditionNotMet" and "Tensor holds no memory" in expected:
        # a body-local tensor freed after its last use in an earlier step: Paddle's executor
        # chose the reader's kernel on that step and fails inside it; the bridge decides per
        # input signature and fails choosing the kernel, before computing (InvalidArgument)
        assert names & {"PreconditionNotMet", "InvalidArgument"}, (
            f"{d.name} [{label}]: raised {type(info.value).__name__}: {info.value}")
        return
    if wanted:
        assert wanted in names or f"{wanted}Error" in names, (
            f"{d.name} [{label}]: raised {type(info.value).__name__}: {info.value}; "
            f"Paddle raised {expected!r}")


@pytest.mark.parametrize("model", [m for m in LOOP_MODELS if _meta(MODELS / m).get("error_runs")])
def test_loop_program_raises_where_paddle_raises(model):
    d = MODELS / model
    for label, feed, expected in _error_runs(d):
        _assert_raises_like_paddle(d, label, feed, expected)


def test_tensor_array_cases_present_and_small():
    cases = _tensor_array_cases()
    assert len(cases) >= 13, cases
    total = sum(f.stat().st_size for c in cases for f in (TENSOR_ARRAY / c).iterdir())
    assert total < 400 * 1024, total


@pytest.mark.parametrize("case", _tensor_array_cases())
def test_tensor_array_case_matches_paddle(case):
    d = TENSOR_ARRAY / case
    deviations = DEVIATIONS.get(case, {})
    runs = _runs(d)
    for label, feed, wanted in runs:
        got = _run_once(d, feed)
        _assert_outputs(d, label, got, wanted)
        # an output carrying a LoD in Paddle carries the same LoD here
        meta_run = next(r for r in _meta(d)["runs"] if r["label"] == label)
        tensors = None
        for item in meta_run["outputs"]:
            if "lod" in item:
                if tensors is None:
                    scope = Scope()
                    program, _, fetches = load_inference_model(d / "inference", scope=scope)
                    tensors = Executor().run(program, feed=feed, fetch_list=fetches,
                                             scope=scope, return_numpy=False)
                lod = [list(level) for level in tensors[item["index"]].lod]
                assert lod == item["lod"], f"{case} [{label}] fetch {item['index']}: lod {lod}"
    for label, feed, expected in _error_runs(d):
        instead = deviations.get(label)
        if instead is None:
            _assert_raises_like_paddle(d, label, feed, expected)
        elif "raises" in instead:
            with pytest.raises(Exception) as info:  # the class is checked below
                _run_once(d, feed)
            assert type(info.value).__name__ == instead["raises"], (
                f"{case} [{label}]: {type(info.value).__name__}: {info.value}")
        else:
            got = _run_once(d, feed)
            for i, ref in instead["outputs"].items():
                g = np.asarray(got[i])
                assert g.dtype == ref.dtype and g.shape == ref.shape, (case, label, i, g)
                np.testing.assert_array_equal(g, ref, err_msg=f"{case} [{label}] fetch {i}")
    assert runs or _error_runs(d), case


def test_a_loop_body_replays_as_compiled_segments_and_still_gives_paddles_outputs():
    # after the body's first pass its bound runners are replaced by compiled segments; every
    # later step and run goes through them, and Paddle's recorded outputs still come out
    from fluid_compat.operators.segments import CompiledSegment

    d = MODELS / "beam_search_decoder"
    label, feed, wanted = _runs(d)[0]
    scope = Scope()
    program, _, fetches = load_inference_model(d / "inference", scope=scope)
    exe = Executor()
    for _ in range(3):
        _assert_outputs(d, label, exe.run(program, feed=feed, fetch_list=fetches, scope=scope),
                        wanted)
    loops = [op for op in exe.last_plan.ops if op.type == "while"]
    assert loops
    segments = [s for op in loops for s in (op._steps or ()) if type(s) is CompiledSegment]
    assert segments and all(s.last_compiled for s in segments)
    assert sum(s.runs for s in segments) >= 3
