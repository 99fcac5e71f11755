"""``fluid-compat compare`` and shadow mode: every op with both kernels run both ways on the
inputs that reach it; a deliberately wrong phi kernel is caught by both, and shadow mode never
changes the results."""

from __future__ import annotations

import io
import json
import re
import sys

import numpy as np
import pytest

from fluid_compat import Executor, load_inference_model
from fluid_compat.cli import main
from fluid_compat.framework.scope import Scope
from fluid_compat.operators.shadow import compare_arrays
from fluid_compat.tools.compare import compare_case, compare_model, load_case
from phi.common.data_type import DataType

from .toolslib import (
    BOTH_KERNEL_OPS,
    CORPUS_MODEL_NAMES,
    FIXTURES,
    LOCAL_CASES,
    SINGLE_OPS,
    corpus_model,
    model_params,
    model_prefix,
    wrong_relu_kernel,
)


def _feed(prefix):
    scope = Scope()
    program, feeds, fetches = load_inference_model(prefix, scope=scope)
    feed = {n: np.load(prefix.parent / f"input_{n}.npy") for n in feeds}
    return program, feed, fetches, scope


def _run(prefix, **exe_options):
    program, feed, fetches, scope = _feed(prefix)
    exe = Executor(**exe_options)
    return exe, exe.run(program, feed=feed, fetch_list=fetches, scope=scope)


@pytest.mark.parametrize("model", model_params())
def test_compare_agrees_on_every_model(model, capsys):
    prefix = model_prefix(model)
    assert main(["compare", str(prefix), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = data["comparisons"]
    assert rows and all(r["passed"] for r in rows)
    assert {r["op_type"] for r in rows} <= BOTH_KERNEL_OPS
    assert all((r["chosen"], r["other"]) == ("phi", "fluid") for r in rows)
    assert all(r["tolerance"] == "rtol 1e-05 atol 1e-05" for r in rows if r["dtype"] == "float32")
    s = data["summary"]
    assert s["ok"] and s["diverged"] == 0 and s["outputs_compared"] == len(rows)
    assert s["ops_compared"] + s["one_sided"] == s["ops_run"]
    assert data["feed"].endswith("beside the model")  # the model's own recorded inputs
    # the table says the same
    assert main(["compare", str(prefix)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "result: agree"
    assert out[-2].startswith(f"summary: {s['ops_compared']} of {s['ops_run']} ops run both "
                              f"ways, {len(rows)} outputs compared, 0 diverged")


def test_the_corpus_models_exercise_every_op_with_both_kernels():
    seen = set()
    for name in CORPUS_MODEL_NAMES:
        report = compare_model(corpus_model(name))
        assert report.ok
        seen |= {r.op_type for r in report.rows}
    assert seen == BOTH_KERNEL_OPS


def test_control_flow_ops_are_compared_per_block():
    report = compare_model(FIXTURES / "while_loop" / "inference")
    assert report.ok
    in_loop = [r for r in report.rows if r.block == 1]
    assert {r.op_type for r in in_loop} == {"scale"} and all(r.runs > 1 for r in in_loop)
    assert {(r.index, r.block) for r in report.rows} == {(0, 1), (1, 1), (5, 0), (6, 0)}


def test_a_wrong_phi_kernel_is_caught_by_compare(capsys):
    prefix = model_prefix("example")
    with wrong_relu_kernel(1e-3):
        assert main(["compare", str(prefix)]) == 1
        out = capsys.readouterr().out
        assert main(["compare", str(prefix), "--format", "json"]) == 1
        data = json.loads(capsys.readouterr().out)
    line = next(li for li in out.splitlines() if " relu " in li)
    assert "DIVERGED" in line and "0.001" in line
    assert out.splitlines()[-1] == "result: DIVERGENCE"
    bad = [r for r in data["comparisons"] if not r["passed"]]
    assert [r["op_type"] for r in bad] == ["relu"]
    assert bad[0]["max_abs"] == pytest.approx(1e-3, rel=1e-3)
    assert data["summary"]["diverged"] == 1 and not data["summary"]["ok"]
    # the real kernel is back: all agree again
    assert main(["compare", str(prefix)]) == 0


@pytest.mark.parametrize("model", model_params())
def test_shadow_mode_never_changes_results(model):
    prefix = model_prefix(model)
    _, plain = _run(prefix)
    exe, shadowed = _run(prefix, shadow=True)
    for a, b in zip(plain, shadowed, strict=True):
        np.testing.assert_array_equal(a, b)
    assert exe.shadow_report.records and not exe.shadow_report.divergences
    if model != "example":
        return
    # with a wrong phi relu: shadow mode records the divergence and returns phi's results
    with wrong_relu_kernel(1e-3):
        _, wrong_plain = _run(prefix)
        exe, wrong_shadowed = _run(prefix, shadow=True)
    for a, b in zip(wrong_plain, wrong_shadowed, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(wrong_plain[0], plain[0])  # the wrong kernel did run
    (div,) = exe.shadow_report.divergences
    assert (div.op_type, div.index, div.chosen, div.other) == ("relu", 5, "phi", "fluid")
    assert div.max_abs == pytest.approx(1e-3, rel=1e-3)


def test_run_shadow_prints_the_divergences_and_keeps_the_results(capsys, tmp_path):
    assert main(["run", "--example", "--shadow", "--out", str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    assert "shadow: 8 outputs of 8 ops compared with the other side, 0 diverged" in out
    assert "output 0: matches Paddle's recorded output" in out
    with wrong_relu_kernel(1e-3):
        main(["run", "--example", "--out", str(tmp_path / "plain")])
        capsys.readouterr()
        main(["run", "--example", "--shadow", "--out", str(tmp_path / "shadow")])
        out = capsys.readouterr().out
    assert "shadow: 8 outputs of 8 ops compared with the other side, 1 diverged" in out
    assert "  DIVERGED op #5 relu.Out (float32): phi vs fluid max abs 0.001" in out
    np.testing.assert_array_equal(np.load(tmp_path / "plain" / "output_0.npy"),
                                  np.load(tmp_path / "shadow" / "output_0.npy"))


# -- single-op cases ------------------------------------------------------------------------------

def test_compare_a_local_case_both_ways_and_with_paddle(capsys):
    case = LOCAL_CASES / "scale_before.json"
    assert load_case(case).op_type == "scale"
    assert main(["compare", "--op", "scale", "--case", str(case)]) == 0
    out = capsys.readouterr().out
    assert " scale " in out and " ok" in out
    assert "kept result matches" in out and out.splitlines()[-1] == "result: agree"
    report = compare_case(case)
    assert report.ok and [r.op_type for r in report.rows] == ["scale"]
    assert report.reference and all(r["passed"] for r in report.reference)


@pytest.mark.parametrize("name", ["mul_2d", "softmax_f64", "conv2d_pad1", "pool2d_max",
                                  "matmul_v2_2d", "elementwise_add_f32_same"])
def test_compare_corpus_cases(name, capsys):
    case = SINGLE_OPS / f"{name}.json"
    if not case.is_file():
        pytest.skip("corpus absent")
    op_type = json.loads(case.read_text())["op_type"]
    assert main(["compare", "--op", op_type, "--case", str(case), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["op_type"] for r in data["comparisons"]] == [op_type]
    assert data["reference"] and data["summary"]["ok"]


def test_case_errors(capsys, tmp_path):
    case = LOCAL_CASES / "scale_before.json"
    assert main(["compare", "--op", "relu", "--case", str(case)]) == 2
    assert "--op relu: case scale_before runs `scale`" in capsys.readouterr().err
    assert main(["compare", "--case", str(tmp_path / "nothing.json")]) == 2
    assert "does not exist" in capsys.readouterr().err
    # an op with a phi kernel only: nothing to compare
    assert main(["compare", "--case", str(LOCAL_CASES / "reshape2_shape_tensor.json")]) == 2
    assert "has a phi kernel only: nothing to compare" in capsys.readouterr().err
    assert main(["compare"]) == 2
    assert main(["compare", "--op", "relu"]) == 2
    assert "--op needs --case" in capsys.readouterr().err


def test_a_wrong_kernel_is_caught_on_a_case(tmp_path):
    # a relu case made from the local scale case's format: X -> relu -> Out
    from fluid_compat.imperative import run_op

    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    case = _relu_case(tmp_path, x, run_op("relu", {"X": x})["Out"][0])
    assert compare_case(case, op_type="relu").ok
    with wrong_relu_kernel(1e-3):
        report = compare_case(case, op_type="relu")
    assert [r.passed for r in report.rows] == [False]
    assert [r["passed"] for r in report.reference] == [False]  # phi's result vs Paddle's


def _relu_case(tmp_path, x, out):
    from fluid_compat.framework import ProgramDesc

    from phi.common.data_type import DataType

    desc = ProgramDesc()
    block = desc.global_block
    for name, shape in (("x", x.shape), ("out", out.shape)):
        block.create_var(name, dtype=DataType.FLOAT32, shape=list(shape))
    block.append_op("relu", {"X": ["x"]}, {"Out": ["out"]}, {})
    np.savez(tmp_path / "relu_case.npz", **{"in.X.0": x, "out.Out.0": out,
                                            "program_desc": np.frombuffer(
                                                desc.serialize_to_string(), np.uint8)})
    spec = {"name": "relu_case", "op_type": "relu", "status": "ok",
            "inputs": {"X": [{"var": "x", "npz_key": "in.X.0"}]},
            "outputs": {"Out": [{"var": "out", "npz_key": "out.Out.0",
                                 "tolerance": {"rtol": 1e-6, "atol": 1e-6}}]}}
    path = tmp_path / "relu_case.json"
    path.write_text(json.dumps(spec))
    return path


def test_progress_bar_on_a_tty(monkeypatch, capsys):
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)
    assert main(["compare", str(model_prefix("example"))]) == 0
    bar = err.getvalue()  # rich.progress: redrawn in place, ended by a new line
    assert re.search(r"op .*15/15", bar) and "\r" in bar
    assert re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", bar).endswith("\n")


# -- the comparison itself --------------------------------------------------------------------

_F32, _F16, _I64 = DataType.FLOAT32, DataType.FLOAT16, DataType.INT64
_INF, _NAN = float("inf"), float("nan")


@pytest.mark.parametrize(("a", "b", "dtype", "want"), [
    ([1.0, 2.0], [1.0, 2.0], _F32, (0.0, 0.0, True)),
    ([1.0], [1.000005], _F32, (pytest.approx(5e-6, rel=0.1), pytest.approx(5e-6, rel=0.1),
                               True)),
    ([1.0], [1.0001], _F32, (pytest.approx(1e-4, rel=0.1), pytest.approx(1e-4, rel=0.1),
                             False)),
    ([1.0], [1.0009], _F16, (pytest.approx(9e-4, rel=0.1), pytest.approx(9e-4, rel=0.1), True)),
    ([1.0], [1.01], _F16, (pytest.approx(1e-2, rel=0.1), pytest.approx(1e-2, rel=0.1), False)),
    ([_INF, 1.0], [_INF, 1.0], _F32, (0.0, 0.0, True)),          # equal infinities agree
    ([_NAN, 1.0], [_NAN, 1.0], _F32, (0.0, 0.0, True)),          # NaN where NaN is expected
    ([_NAN, 1.0], [0.0, 1.0], _F32, (_INF, _INF, False)),        # NaN against a number
    ([_INF], [-_INF], _F32, (_INF, _INF, False)),                # opposite infinities
    ([_INF], [1e30], _F32, (_INF, _INF, False)),
    ([1, 2], [1, 3], _I64, (1.0, _INF, False)),                  # integers: exact
    ([[1.0]], [1.0], _F32, (_INF, _INF, False)),                 # shapes differ
])
def test_compare_arrays_special_values(a, b, dtype, want):
    np_dtype = np.int64 if dtype is _I64 else np.float32
    got = compare_arrays(np.array(a, np_dtype), np.array(b, np_dtype), dtype)
    assert got == want


def test_pool2d_fluid_and_phi_agree_on_every_pool2d_case():
    """The fluid pool2d kernel counts a non-exclusive average's window as Paddle does (a window
    wholly past the widened input counts negative: 0 / -n = -0.0), so `compare` of each Paddle-made
    pool2d case agrees, as the phi kernel matches Paddle's recorded output."""
    import subprocess
    import sys
    from pathlib import Path

    cases = sorted((Path(__file__).resolve().parents[2] / "fixtures" / "single_ops")
                   .glob("pool2d_avg_*.json"))
    assert cases
    for case in cases:
        done = subprocess.run([sys.executable, "-m", "fluid_compat", "compare", "--op", "pool2d",
                               "--case", str(case)], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and "result: agree" in done.stdout, (case.name, done.stdout)
