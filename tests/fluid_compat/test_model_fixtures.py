"""Small real models saved by Paddle 2.6.2 (tests/fixtures/models, made by
tools/fixtures/gen_models.py): paddle.vision's mobilenet_v3_small, mobilenet_v2 and
shufflenet_v2 (narrowed), inception_v3 and squeezenet1_1 (every width divided by 32 / 8), a tiny
ResNeXt from its ResNet and BottleneckBlock (grouped convs) and LeNet, DenseNet-, Inception- and
ResNet-style models built from paddle.nn, paddle.nn.Transformer, a tiny BERT-style encoder and a
bidirectional two-layer paddle.nn.LSTM. Each runs
unchanged through load_inference_model + Executor and matches Paddle's recorded outputs (float32:
rtol 1e-4, atol 1e-4); op by op, every op picks the expected kernel key, KernelSignature and phi
kernel key Paddle recorded.

A fixture whose ops are not implemented yet is marked xfail(strict=True), so that it turns into
a failure the day it passes."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import Executor, load_inference_model
from fluid_compat.framework.scope import Scope
from fluid_compat.imperative import run_op_with_operator

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "models"

MODELS = [
    "mobilenet_v3_small",
    "shufflenet_v2",
    "densenet_tiny",
    "inception_tiny",
    "resnet_tiny",
    "transformer_tiny",
    "lstm_tiny",
    "inception_v3_small",
    "bert_tiny",
    "mobilenet_v2_small",
    "resnext_tiny",
    "squeezenet_small",
    "lenet",
]
# model -> reason, for fixtures whose ops are not implemented yet (none at the moment)
NOT_YET: dict[str, str] = {}


def _params():
    return [
        pytest.param(m, marks=pytest.mark.xfail(reason=NOT_YET[m], strict=True))
        if m in NOT_YET else m
        for m in MODELS
    ]


def _meta(model: str) -> dict:
    return json.loads((FIXTURES / model / "meta.json").read_text())


def _runs(model: str) -> list[tuple[dict, list]]:
    d = FIXTURES / model
    out = []
    for run in _meta(model)["runs"]:
        feed = {name: np.load(d / item["file"]) for name, item in run["inputs"].items()}
        outs = [np.load(d / item["file"]) for item in run["outputs"]]
        out.append((feed, outs))
    return out


def test_fixtures_are_small():
    for model in MODELS:
        d = FIXTURES / model
        size = sum(f.stat().st_size for f in d.iterdir())
        assert size < 400 * 1024, f"{model}: {size} bytes"


@pytest.mark.parametrize("model", _params())
def test_model_matches_paddle(model):
    scope = Scope()
    program, _, fetches = load_inference_model(FIXTURES / model / "inference", scope=scope)
    exe = Executor()
    for feed, wanted in _runs(model):
        outs = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
        assert len(outs) == len(wanted)
        for got, ref in zip(outs, wanted, strict=True):
            got = np.asarray(got)
            assert got.shape == ref.shape and got.dtype == ref.dtype
            np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4, err_msg=model)
    # the planned program's own decisions (block 0) are among those Paddle's trace recorded
    checked, bad = CHECKER.check_choices(exe._last_plan.ops, _meta(model))
    assert checked and not bad, bad


def _checker():
    """tools/fixtures/check_with_project.py (dev tool, no paddle): the rule that reads Paddle's
    recorded kernel choices lives there once."""
    path = Path(__file__).resolve().parents[2] / "tools" / "fixtures" / "check_with_project.py"
    spec = importlib.util.spec_from_file_location("check_with_project", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHECKER = _checker()


@pytest.mark.parametrize("model", _params())
def test_model_op_by_op_kernel_choices_match_paddle(model):
    """Every op of block 0 through run_op (values kept in a dict): the kernel decisions are
    among those Paddle's kernel trace recorded for that op type, and the fetched values match."""
    from fluid_compat.framework.program_desc import ProgramDesc
    from fluid_compat.framework.tensor_io import load_combined_params

    d = FIXTURES / model
    meta = _meta(model)
    recorded = CHECKER.recorded_choices(meta)
    prog = ProgramDesc.parse_from_string((d / "inference.pdmodel").read_bytes())
    values = {}
    if (d / "inference.pdiparams").exists():
        values = {k: v[0] for k, v in load_combined_params(str(d / "inference.pdiparams"),
                                                           prog).items()}
    run1 = meta["runs"][0]
    for name, item in run1["inputs"].items():
        values[name] = np.load(d / item["file"])
    fetched = []
    checked = 0
    for op in prog.block(0).ops:
        if op.type == "feed":
            continue
        if op.type == "fetch":
            fetched.append(op.input("X")[0])
            continue
        inputs = {s: [values[n] for n in names] for s, names in op.inputs.items() if names}
        attrs = {k: getattr(v, "value", v) for k, v in op.attrs.items()}
        result, operator = run_op_with_operator(
            op.type, inputs, attrs,
            extra_outputs=[s for s, names in op.outputs.items() if names])
        for slot, names in op.outputs.items():
            values.update(zip(names, result.get(slot, []), strict=False))
        if op.type not in recorded:
            continue
        (choice,) = operator.kernel_choices().values()
        mine = CHECKER.choice_key(choice)
        assert mine in recorded[op.type], (op.type, mine, recorded[op.type])
        checked += 1
    assert checked
    assert fetched
    for i, name in enumerate(fetched):
        ref = np.load(d / run1["outputs"][i]["file"])
        np.testing.assert_allclose(np.asarray(values[name]), ref, rtol=1e-4, atol=1e-4,
                                   err_msg=f"{model} fetch {i}")


@pytest.mark.parametrize("model", [*MODELS, "while_loop", "cond_block"])
def test_fluid_compat_run_matches_paddle(model, capsys):
    """The command line on the same fixtures: `fluid-compat run PREFIX --feed ... --expect DIR`,
    three planned runs (the later ones replay cached decisions and fused steps)."""
    from fluid_compat.cli import main

    d = FIXTURES / model
    run = _meta(model)["runs"][0]
    feeds = [a for name, item in run["inputs"].items()
             for a in ("--feed", f"{name}={d / item['file']}")]
    assert main(["run", str(d / "inference"), *feeds, "--expect", str(d), "--repeat", "3"]) == 0
    assert "mismatch" not in capsys.readouterr().out.lower()
