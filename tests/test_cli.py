"""The fluid-compat command: --version, kernels, run (bundled example, feeds, errors), demo."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from fluid_compat.cli import main


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("fluid-compat ")


def test_kernels_lists_names_and_keys(capsys):
    assert main(["kernels"]) == 0
    out = capsys.readouterr().out
    # within 100 columns a long kernel name elsewhere (kernels tests register) may wrap a row
    assert max(len(line) for line in out.splitlines()) <= 100
    assert re.search(r"^relu +\(CPU, Undefined\(AnyLayout\)\)", out, flags=re.M)
    assert main(["kernels", "--wide"]) == 0  # one line per row
    out = capsys.readouterr().out
    assert re.search(r"^relu +\(CPU, Undefined\(AnyLayout\)\) \[float32, float64\]", out,
                     flags=re.M)  # a table row: kernel, (backend, layout) [dtypes]
    assert main(["kernels", "softmax", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {k["key"] for k in data["softmax"]} >= {"(CPU, Undefined(AnyLayout), float32)",
                                                   "(CPU, Undefined(AnyLayout), float64)"}
    assert main(["kernels", "sofmax"]) == 2
    assert "Closest registered names: softmax" in capsys.readouterr().err


def test_run_example_matches_paddle(capsys, tmp_path):
    assert main(["run", "--example", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "output 0: matches Paddle's recorded output" in out
    assert "ops: 15 ran: 15 on phi kernels, 0 on fluid kernels, 0 fell back to CPU" in out
    assert np.load(tmp_path / "output_0.npy").shape == (2, 6)


def test_run_with_random_inputs_and_bad_feed(capsys, tmp_path):
    from fluid_compat.examples import example_prefix

    prefix = str(example_prefix())
    assert main(["run", prefix]) == 0  # the recorded input beside the model
    assert "no --feed given: input_image.npy beside the model" in capsys.readouterr().out
    bad = tmp_path / "bad.npy"
    np.save(bad, np.zeros((2, 3, 8, 8), np.float64))
    assert main(["run", prefix, "--feed", f"image={bad}"]) == 1
    assert "feed `image` has dtype float64, the program expects float32" in (
        capsys.readouterr().err)
    assert main(["run", str(tmp_path / "nothing")]) == 1
    assert "not found" in capsys.readouterr().err


def test_demo_prints_its_dispatch_trace(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "key (CPU, NCHW, float32) -> kernel matmul (CPU, Undefined(AnyLayout), float32)" in out
    assert "step 4: (CPU, Undefined(AnyLayout), float32) -> found" in out
    assert "Selected wrong DataType `int32`" in out
