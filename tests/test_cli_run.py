"""``fluid-compat run`` as users run it: the recorded inputs beside a model, random
inputs the program can take, ``--expect`` refusing random inputs, ``--repeat`` latency, and the
model named as a prefix, a ``.pdmodel``, a directory (``inference.pdmodel``, one ``*.pdmodel``,
``__model__`` with ``__params__`` or one file per parameter), ``--params FILE``.  Each runs the
CLI in a subprocess: exit code, the message, no traceback.  Truth: the outputs Paddle 2.6.2
recorded beside each fixture (``--expect``) and its meta.json."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "tests" / "fixtures" / "models"


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "fluid_compat.cli", "run", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def _copy(model: str, dest: Path, *names: str) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(MODELS / model / name, dest / name)
    return dest


def test_the_inputs_beside_the_model_are_used_and_match_paddle():
    done = _cli(str(MODELS / "bert_tiny" / "inference"), "--expect", str(MODELS / "bert_tiny"))
    assert done.returncode == 0, done.stderr
    assert ("no --feed given: input_input_ids.npy, input_token_type_ids.npy beside the model"
            in done.stdout)
    assert done.stdout.count("matches Paddle's recorded output") == 2


def test_random_ids_stay_inside_the_embedding(tmp_path):
    model = _copy("bert_tiny", tmp_path / "bert", "inference.pdmodel", "inference.pdiparams")
    meta = json.loads((MODELS / "bert_tiny" / "meta.json").read_text())
    # the lookup tables Paddle saved: word embeddings (vocabulary) and token types
    tables = sorted(p["shape"][0] for p in meta["parameters"]
                    if "embedding" in p["name"] and len(p["shape"]) == 2)
    done = _cli(str(model))
    assert done.returncode == 0, done.stderr
    found = dict(re.findall(r"(\w+)\[2, 8\] int64 in \[0, (\d+)\)", done.stdout))
    assert set(found) == {"input_ids", "token_type_ids"}
    assert int(found["token_type_ids"]) == tables[0] and int(found["input_ids"]) in tables


def test_expect_refuses_random_inputs(tmp_path):
    model = _copy("lenet", tmp_path / "lenet", "inference.pdmodel", "inference.pdiparams")
    done = _cli(str(model), "--expect", str(MODELS / "lenet"))
    assert done.returncode == 2
    assert "--expect compares with outputs Paddle computed from recorded inputs" in done.stderr
    assert "DIFFERS" not in done.stdout


def test_yolo_random_inputs_get_the_image_size_yolo_box_implies(tmp_path):
    model = _copy("yolo_nms_tiny", tmp_path / "yolo", "inference.pdmodel",
                  "inference.pdiparams")
    done = _cli(str(model / "inference.pdmodel"))
    assert done.returncode == 0, done.stderr
    # the image is 32x32 ([-1, 3, 32, 32] in Paddle's var desc): ImgSize rows [32, 32]
    assert "im_shape[1, 2] int32 = [32, 32]" in done.stdout


def test_repeat_prints_first_and_steady_state_latency():
    done = _cli(str(MODELS / "lenet"), "--repeat", "4")
    assert done.returncode == 0, done.stderr
    assert re.search(r"latency: first run [\d.]+ ms; steady state over 3 runs: median [\d.]+ ms",
                     done.stdout), done.stdout
    done = _cli(str(MODELS / "lenet"), "--repeat", "0")
    assert done.returncode == 2 and "--repeat expects a count >= 1" in done.stderr


def test_model_forms(tmp_path):
    lenet = MODELS / "lenet"
    expect = ("--feed", f"image={lenet / 'input_image.npy'}", "--expect", str(lenet))
    # X.pdmodel (not X.pdmodel.pdmodel), and a directory holding inference.pdmodel
    for model in (lenet / "inference.pdmodel", lenet):
        done = _cli(str(model), *expect)
        assert done.returncode == 0 and "matches" in done.stdout, done.stderr
    # a directory holding one *.pdmodel of another name, with its .pdiparams
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(lenet / "inference.pdmodel", other / "model.pdmodel")
    shutil.copy(lenet / "inference.pdiparams", other / "model.pdiparams")
    done = _cli(str(other), *expect)
    assert done.returncode == 0 and "matches" in done.stdout, done.stderr
    # --params FILE: the parameters elsewhere, under another name
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(lenet / "inference.pdmodel", alone / "net.pdmodel")
    shutil.copy(lenet / "inference.pdiparams", tmp_path / "weights.bin")
    done = _cli(str(alone / "net.pdmodel"), *expect)
    assert done.returncode == 1 and "no parameter file" in done.stderr
    done = _cli(str(alone / "net.pdmodel"), "--params", str(tmp_path / "weights.bin"), *expect)
    assert done.returncode == 0 and "matches" in done.stdout, done.stderr
    # __model__ with __params__, and with one file per parameter
    old = tmp_path / "old"
    old.mkdir()
    shutil.copy(lenet / "inference.pdmodel", old / "__model__")
    shutil.copy(lenet / "inference.pdiparams", old / "__params__")
    done = _cli(str(old), *expect)
    assert done.returncode == 0 and "matches" in done.stdout, done.stderr
    separate = tmp_path / "separate"
    _separate_params(lenet, separate)
    done = _cli(str(separate), *expect)
    assert done.returncode == 0 and "matches" in done.stdout, done.stderr


def _separate_params(d: Path, out: Path) -> None:
    from fluid_compat.framework import ProgramDesc
    from fluid_compat.framework.tensor_io import load_combined_params, save_separate_params

    out.mkdir()
    shutil.copy(d / "inference.pdmodel", out / "__model__")
    desc = ProgramDesc.load(out / "__model__")
    save_separate_params(out, desc, load_combined_params(str(d / "inference.pdiparams"), desc))


def test_model_paths_that_are_not_models(tmp_path):
    done = _cli(str(tmp_path / "nothing"))
    assert done.returncode == 1 and "model not found at" in done.stderr
    assert "nothing.pdmodel" in done.stderr
    done = _cli(str(tmp_path))
    assert done.returncode == 1 and "holds no program" in done.stderr
    for name in ("a", "b"):
        shutil.copy(MODELS / "lenet" / "inference.pdmodel", tmp_path / f"{name}.pdmodel")
    done = _cli(str(tmp_path))
    assert done.returncode == 1 and "several programs (a.pdmodel, b.pdmodel)" in done.stderr
    done = _cli(str(MODELS / "lenet" / "inference.pdiparams"))
    assert done.returncode == 1 and "is a parameter file" in done.stderr


def test_feed_constraints_follow_ids_through_value_keeping_ops():
    """A hand-built program: ids reshaped then cast before a lookup table of 11 rows, a
    one_hot of depth 7, a gather over a dim of 5, and a LoD feed (one sequence)."""
    import numpy as np

    from phi.common.data_type import DataType

    from fluid_compat.executor import Program
    from fluid_compat.framework import ProgramDesc
    from fluid_compat.tools.run import feed_constraints, random_feed

    desc = ProgramDesc()
    b = desc.global_block
    for name, dtype, shape in (("ids", DataType.INT64, [-1, 4]), ("hot", DataType.INT32, [3]),
                               ("idx", DataType.INT64, [6]), ("w", DataType.FLOAT32, [11, 2]),
                               ("t", DataType.FLOAT32, [5, 3]), ("r", DataType.INT64, [-1]),
                               ("c", DataType.INT32, [-1])):
        b.create_var(name, dtype=dtype, shape=shape)
    b.create_var("seq", dtype=DataType.FLOAT32, shape=[-1, 2], lod_level=1)
    b.append_op("reshape2", {"X": ["ids"]}, {"Out": ["r"]}, {"shape": [-1]})
    b.append_op("cast", {"X": ["r"]}, {"Out": ["c"]}, {"in_dtype": 3, "out_dtype": 2})
    b.append_op("lookup_table_v2", {"Ids": ["c"], "W": ["w"]}, {"Out": ["e"]})
    b.append_op("one_hot_v2", {"X": ["hot"]}, {"Out": ["h"]}, {"depth": 7})
    b.append_op("gather", {"X": ["t"], "Index": ["idx"]}, {"Out": ["g"]}, {"axis": 0})
    program = Program(desc)
    names = ["ids", "hot", "idx", "seq"]
    assert feed_constraints(program, names) == {"ids": {"high": 11}, "hot": {"high": 7},
                                                "idx": {"high": 5}}
    feed = random_feed(program, names, seed=1)
    assert feed["ids"].shape == (1, 4) and feed["ids"].max() < 11
    assert feed["hot"].max() < 7 and feed["idx"].max() < 5
    arr, lod = feed["seq"]
    assert arr.shape == (1, 2) and lod == [[0, 1]] and arr.dtype == np.float32
