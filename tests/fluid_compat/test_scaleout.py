"""Scale-out on Ray (issue 15): sweeps and batch inference give the local results; a worker
killed mid-sweep is retried.  The Ray tests start a local Ray with 2 CPUs and skip cleanly
when the [ray] extra is absent; the local paths and the error without Ray always run."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import scaleout
from fluid_compat.cli import main
from phi.core.errors import NotFound, PreconditionNotMet
from tests.corpus_paths import CORPUS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MODELS = FIXTURES / "models"
SWEEP = [str(MODELS / m) for m in ("lenet", "resnet_tiny", "mobilenet_v2_small",
                                   "squeezenet_small", "bert_tiny", "shufflenet_v2")]
CASES = str(FIXTURES / "single_ops" / "lod_through_*.json")
CORPUS_MODELS = CORPUS / "models"  # Paddle-saved corpus models, swept too when present
if CORPUS_MODELS.is_dir():
    SWEEP.append(str(CORPUS_MODELS))


def _norm(result: scaleout.SweepResult) -> list[tuple]:
    """What must not depend on where an item ran: item, verdict, and every comparison."""
    return [(r["item"], r["ok"], r.get("error", ""),
             json.dumps(r.get("comparisons"), sort_keys=True)) for r in result.results]


def test_items_from_directories_globs_and_lists(tmp_path):
    items = scaleout.sweep_items([str(MODELS / "lenet"), CASES])
    assert items[0] == scaleout.SweepItem("model", str(MODELS / "lenet" / "inference"))
    assert {i.kind for i in items[1:]} == {"case"} and len(items) > 3
    listing = tmp_path / "list.txt"
    listing.write_text(f"{MODELS / 'lenet' / 'inference.pdmodel'}\n")
    assert scaleout.sweep_items([f"@{listing}"]) == items[:1]
    with pytest.raises(NotFound, match="no model"):
        scaleout.sweep_items([str(tmp_path / "nothing")])


def test_local_sweep_reports_every_item_and_failures(tmp_path, capsys):
    bad = tmp_path / "broken.pdmodel"
    bad.write_bytes(b"not a program")
    assert main(["compare", SWEEP[0], CASES, str(bad), "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    by_item = {r["item"]: r for r in out["items"]}
    assert by_item[str(tmp_path / "broken")]["error"]  # a failed item, not a failed sweep
    assert out["summary"]["failed"] == 1 and out["summary"]["agree"] == out["summary"]["run"] - 1
    # --max-failures 0: the sweep stops after the first failure
    r = scaleout.run_sweep(scaleout.sweep_items([str(bad), SWEEP[0]]), max_failures=0)
    assert r.aborted and r.results[1] is None


def test_ray_flag_without_ray_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(PreconditionNotMet, match=r"fluid-phi-bridge\[ray\]"):
        scaleout.require_ray()
    assert main(["compare", SWEEP[0], "--ray"]) == 2
    assert "pip install 'fluid-phi-bridge[ray]'" in capsys.readouterr().err


def test_local_dataset_run_equals_one_run_per_row(tmp_path):
    rows = _rows(tmp_path, 12)
    stats = scaleout.run_dataset(str(MODELS / "lenet" / "inference"), tmp_path)
    assert stats["rows"] == 12
    _check_rows(rows)


def _rows(d: Path, n: int) -> list[Path]:
    rng = np.random.default_rng(3)
    paths = []
    for i in range(n):
        p = d / f"row{i:04d}.npy"
        np.save(p, rng.standard_normal((2, 1, 28, 28)).astype(np.float32))
        paths.append(p)
    return paths


def _check_rows(rows: list[Path]) -> None:
    from fluid_compat import Executor
    from fluid_compat.framework.scope import Scope
    from fluid_compat.io import load_inference_model

    scope = Scope()
    program, feeds, fetches = load_inference_model(MODELS / "lenet" / "inference", scope=scope)
    exe = Executor()
    for p in rows:
        (want,) = exe.run(program, feed={feeds[0]: np.load(p)}, fetch_list=fetches,
                          scope=scope)
        np.testing.assert_array_equal(np.load(p.with_name(f"{p.stem}.output_0.npy")), want)


# -- on Ray ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ray_2cpus():
    ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
             ignore_reinit_error=True)
    yield ray
    ray.shutdown()


def test_ray_sweep_equals_the_local_sweep(ray_2cpus):
    items = scaleout.sweep_items([*SWEEP, CASES])
    local = scaleout.run_sweep(items)
    seen = []
    remote = scaleout.run_sweep(items, use_ray=True,
                                progress=lambda d, t, r: seen.append((d, t)))
    assert local.ok and remote.ok
    assert _norm(remote) == _norm(local)
    assert seen[-1] == (len(items), len(items))


def _running_task_pids() -> list[int]:
    """Workers running a compare task: Ray titles their process ``ray::compare_item``."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if b"ray::compare_item" in (d / "cmdline").read_bytes():
                    pids.append(int(d.name))
            except OSError:
                continue
    return pids


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds Ray's workers through /proc")
def test_a_worker_killed_mid_sweep_is_retried(ray_2cpus):
    items = scaleout.sweep_items(SWEEP * 2)
    killed: list[int] = []

    def kill_one(done, total, result):
        if killed:
            return
        for _ in range(100):
            pids = _running_task_pids()
            if pids:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])
                return
            threading.Event().wait(0.02)

    result = scaleout.run_sweep(items, use_ray=True, retries=3, progress=kill_one)
    assert killed, "no running task to kill"
    assert result.ok and all(r is not None for r in result.results)
    assert _norm(result) == _norm(scaleout.run_sweep(items))


def test_ray_dataset_run_equals_one_run_per_row(ray_2cpus, tmp_path):
    rows = _rows(tmp_path, 300)
    stats = scaleout.run_dataset(str(MODELS / "lenet" / "inference"), tmp_path, use_ray=True,
                                 batch_size=32)
    assert stats["rows"] == 300
    _check_rows(rows)


def test_ray_parquet_dataset_equals_local(ray_2cpus, tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rng = np.random.default_rng(5)
    xs = rng.standard_normal((40, 2, 1, 28, 28)).astype(np.float32)
    pq.write_table(pa.table({"image": [x.tolist() for x in xs]}), tmp_path / "d.parquet")
    scaleout.run_dataset(str(MODELS / "lenet" / "inference"), tmp_path / "d.parquet")
    local = pq.read_table(tmp_path / "d.outputs.parquet").column("output_0").to_pylist()
    scaleout.run_dataset(str(MODELS / "lenet" / "inference"), tmp_path / "d.parquet",
                         use_ray=True, batch_size=8)
    remote = pq.read_table(tmp_path / "d.outputs.parquet").column("output_0").to_pylist()
    assert remote == local and len(local) == 40
