"""``fluid-compat inspect MODEL``: a model's metadata without running it, as a user runs it
(a subprocess; exit code, output, no traceback).  Truth: what Paddle 2.6.2 recorded about each
fixture model (tests/fixtures/models/<m>/meta.json: feed and fetch variables, op type counts,
parameters)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "tests" / "fixtures" / "models"


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="100")
    return subprocess.run([sys.executable, "-m", "fluid_compat.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def _meta(model: str) -> dict:
    return json.loads((MODELS / model / "meta.json").read_text())


@pytest.mark.parametrize("model", ["yolo_nms_tiny", "crnn_ctc_lod", "while_loop"])
def test_json_matches_what_paddle_recorded(model):
    done = _cli("inspect", str(MODELS / model), "--format", "json")
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    meta = _meta(model)
    feeds = {f["name"]: f["var"] for f in meta["feeds"]}
    assert [f["name"] for f in info["feeds"]] == [f["name"] for f in meta["feeds"]]
    for f in info["feeds"]:
        assert f["shape"] == feeds[f["name"]]["shape"]
        assert f["dtype"] == feeds[f["name"]]["dtype"]["numpy"]
    assert [f["name"] for f in info["fetches"]] == [f["name"] for f in meta["fetches"]]
    assert [f["shape"] for f in info["fetches"]] == [f["var"]["shape"] for f in meta["fetches"]]
    assert info["ops"]["types"] == meta["op_type_counts"]  # every block's ops
    assert info["ops"]["total"] == meta["num_ops_all_blocks"]
    assert info["blocks"] == meta["format"]["num_blocks"]
    params = meta.get("parameters", [])
    assert info["parameters"]["count"] == len(params)
    values = sum(int(np.prod(p["shape"])) for p in params)
    assert info["parameters"]["elements"] == values
    assert info["parameters"]["bytes"] == sum(
        int(np.prod(p["shape"])) * np.dtype(p["dtype"]["numpy"]).itemsize for p in params)
    sides = info["kernels"]
    assert sum(n for side in sides.values() for n in side.values()) == info["ops"]["total"]
    assert sides["executor"] == {t: n for t, n in meta["op_type_counts"].items()
                                 if t in ("feed", "fetch")}


def test_text_shows_feeds_fetches_lod_and_where_ops_run():
    done = _cli("inspect", str(MODELS / "crnn_ctc_lod" / "inference.pdmodel"))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # Paddle's recorded var descs: image [2, 1, 8, 32] float32; fetches with LoD level 1
    assert "  image  [2, 1, 8, 32]  float32" in out
    assert "save_infer_model/scale_0.tmp_0  [32, 1]  int64    lod_level 1" in out
    assert "parameters: 6 tensors" in out
    assert "fluid kernels / operators: 4 ops (ctc_align 1, lod_reset 2, sequence_conv 1)" in out
    assert "the executor: 3 ops (feed 1, fetch 2)" in out
    assert all(len(line) <= 100 for line in out.splitlines() if not line.startswith("model:"))


def test_while_loop_counts_ops_of_every_block():
    meta = _meta("while_loop")
    done = _cli("inspect", str(MODELS / "while_loop"), "--format", "json")
    info = json.loads(done.stdout)
    assert meta["num_ops_all_blocks"] > meta["num_ops_block0"]
    assert info["ops"]["total"] == meta["num_ops_all_blocks"]
    assert info["ops"]["block0"] == meta["num_ops_block0"]
    assert info["kernels"]["fluid"].get("while") == 1


def test_unavailable_ops_are_named_with_the_reason(tmp_path):
    from fluid_compat.framework import ProgramDesc

    desc = ProgramDesc.load(MODELS / "lenet" / "inference.pdmodel")
    block = desc.global_block
    block.append_op("c_allreduce_sum", {"X": ["image"]}, {"Out": ["image"]})  # a process group
    desc.save(tmp_path / "m.pdmodel")
    done = _cli("inspect", str(tmp_path / "m.pdmodel"))
    assert done.returncode == 0, done.stderr
    assert "unavailable here: 1 op (c_allreduce_sum 1)" in done.stdout
    assert "c_allreduce_sum: needs a process group" in done.stdout


def test_bad_model_paths_are_clean_errors(tmp_path):
    done = _cli("inspect", str(tmp_path / "missing"))
    assert done.returncode == 1
    assert "fluid-compat inspect: (NotFound) model not found at" in done.stderr
    assert "Traceback" not in done.stderr
    for name in ("a", "b"):
        shutil.copy(MODELS / "lenet" / "inference.pdmodel", tmp_path / f"{name}.pdmodel")
    done = _cli("inspect", str(tmp_path))
    assert done.returncode == 1 and "several programs (a.pdmodel, b.pdmodel)" in done.stderr
    (tmp_path / "junk.pdmodel").write_bytes(b"\x00not a program")
    done = _cli("inspect", str(tmp_path / "junk.pdmodel"))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("fluid-compat inspect: ")
    done = _cli("inspect", "--help")
    assert done.returncode == 0 and "--format" in done.stdout
