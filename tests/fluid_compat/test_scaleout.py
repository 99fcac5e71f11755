"""Scale-out on Ray: sweeps and batch inference give the local results; a worker
killed mid-sweep is retried.  The Ray tests start a local Ray with 2 CPUs and skip cleanly
when the [ray] extra is absent; the local paths and the error without Ray always run.
The installed Ray is one of the declared versions; ``run --dataset --ray`` is quiet
(none of Ray's INFO lines, deprecation or "no available CPUs" warnings) and shuts down the
Ray it started, not one its caller started; a bad row's error names the row."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import tomllib
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from fluid_compat import scaleout
from fluid_compat.cli import main
from phi.core.errors import InvalidArgument, NotFound, PreconditionNotMet
from tests.corpus_paths import CORPUS

ROOT = Path(__file__).resolve().parents[2]
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


def test_the_sweep_table_fits_100_columns(tmp_path):
    bad = tmp_path / ("a_model_with_a_name_long_enough_to_wrap_" * 2 + "broken.pdmodel")
    bad.write_bytes(b"not a program")
    result = scaleout.run_sweep(scaleout.sweep_items([SWEEP[0], str(bad)]))
    lines = scaleout.format_sweep(result)
    assert max(len(ln) for ln in lines) <= 100
    rule = next(i for i, ln in enumerate(lines) if set(ln) == {"\u2500"})
    header = " ".join(lines[:rule]).split()  # a header may wrap over two lines
    assert sorted(header) == sorted(["item", "kind", "ops", "both", "ways", "outputs",
                                     "diverged", "result"])
    # lenet's row whole on one line: item, kind, ops, outputs, diverged 0, agree
    assert sum(len(ln.split()) == 6 and ln.split()[1] == "model" and ln.split()[4:] == ["0",
               "agree"] for ln in lines) == 1
    assert sum("FAILED:" in ln for ln in lines) == 1  # the broken model's row, wrapped
    assert re.fullmatch(r"sweep: 2 of 2 items run in [\d.]+ s: 1 agree, 0 diverged, 1 failed",
                        lines[-1])
    wide = scaleout.format_sweep(result, width=400)
    assert any(str(bad.with_suffix("")) in ln for ln in wide)  # unwrapped when wide enough


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


def test_a_bad_row_is_named_in_its_error(tmp_path):
    _rows(tmp_path, 2)
    np.save(tmp_path / "row0002.npy", np.zeros((1, 1, 28, 28), np.float32))  # batch 1, not 2
    (tmp_path / "row0003.npy").write_bytes(b"not numpy")
    with pytest.raises(InvalidArgument, match=r"row .*row0002\.npy: feed `image` has shape "
                                              r"\[1, 1, 28, 28\]"):
        scaleout.run_dataset(str(MODELS / "lenet" / "inference"), tmp_path)
    (tmp_path / "row0002.npy").unlink()
    with pytest.raises(InvalidArgument, match=r"row .*row0003\.npy: cannot be read"):
        scaleout.run_dataset(str(MODELS / "lenet" / "inference"), tmp_path)


def test_the_declared_ray_versions_are_the_module_s_and_the_installed_one():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["ray"]
    assert extra == [f"ray[data]{scaleout.RAY_VERSIONS}"]
    ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")
    from packaging.specifiers import SpecifierSet

    assert ray.__version__ in SpecifierSet(scaleout.RAY_VERSIONS), (
        f"Ray {ray.__version__} is outside the declared {scaleout.RAY_VERSIONS}")
    # the API the module relies on, in this version: compute= on map_batches, task pools
    import inspect

    params = inspect.signature(ray.data.Dataset.map_batches).parameters
    assert "compute" in params and "num_cpus" in params
    assert ray.data.TaskPoolStrategy(size=3).size == 3


@pytest.mark.parametrize("cpus, workers, batches, want", [
    (2, 2, 10, (2, 0.5)),   # 2 cores: one CPU left to Ray Data's own tasks, two half-CPU workers
    (2, 2, 1, (1, 1.0)),    # one batch: one worker
    (16, 2, 10, (2, 1.0)),  # room enough: a CPU each
    (1, 2, 10, (2, 0.25)),  # one core: half of it left free
    (4, 8, 100, (8, 0.375)),
])
def test_worker_pool_leaves_a_cpu_to_ray_data(cpus, workers, batches, want):
    ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")
    fake = SimpleNamespace(data=ray.data, cluster_resources=lambda: {"CPU": float(cpus)})
    pool = scaleout.worker_pool(fake, workers, batches)
    assert isinstance(pool["compute"], ray.data.TaskPoolStrategy)
    assert (pool["compute"].size, pool["num_cpus"]) == want


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

def _run_python(code: str, timeout: int = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


#: what Ray printed on the driver's stderr before: its log lines ("2026-12-01 22:25:35,393\tINFO
#: streaming_executor.py:215 -- ..."), the core worker's ("[2026-... E 4955 4955] core_worker.cc"),
#: the deprecations and the "no available CPUs" warning
RAY_NOISE = re.compile(r"\d\d:\d\d:\d\d,\d+\s+(INFO|WARNING|ERROR)|\] core_worker|deprecated|"
                       r"available CPUs|Traceback")


def test_cli_ray_dataset_run_is_quiet(tmp_path):
    pytest.importorskip("ray", reason="the [ray] extra is not installed")
    rows = _rows(tmp_path, 40)
    done = subprocess.run(
        [sys.executable, "-m", "fluid_compat", "run", str(MODELS / "lenet" / "inference"),
         "--dataset", str(tmp_path), "--ray"],
        env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT, capture_output=True, text=True,
        timeout=300)
    assert done.returncode == 0, done.stderr
    assert re.match(r"40 rows on Ray in [\d.]+ s", done.stdout), done.stdout
    assert not RAY_NOISE.search(done.stderr), done.stderr
    assert done.stderr.strip() == "", done.stderr
    _check_rows(rows)


def test_a_ray_the_run_started_is_shut_down_one_the_caller_started_is_not(tmp_path):
    pytest.importorskip("ray", reason="the [ray] extra is not installed")
    _rows(tmp_path, 3)
    done = _run_python(f"""
    import ray
    from fluid_compat import scaleout
    model, rows = {str(MODELS / "lenet" / "inference")!r}, {str(tmp_path)!r}
    assert not ray.is_initialized()
    scaleout.run_dataset(model, rows, use_ray=True)
    print("started here, after:", ray.is_initialized())
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    scaleout.run_dataset(model, rows, use_ray=True)
    print("the caller's, after:", ray.is_initialized())
    scaleout.run_sweep(scaleout.sweep_items([model + ".pdmodel"]), use_ray=True)
    print("the caller's, after a sweep:", ray.is_initialized())
    ray.shutdown()
    scaleout.run_sweep(scaleout.sweep_items([model + ".pdmodel"]), use_ray=True)
    print("a sweep's own, after:", ray.is_initialized())
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["started here, after: False", "the caller's, after: True",
                                        "the caller's, after a sweep: True",
                                        "a sweep's own, after: False"]


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


def test_a_bad_row_on_ray_is_our_error_naming_it(ray_2cpus, tmp_path):
    _rows(tmp_path, 3)
    np.save(tmp_path / "row0001.npy", np.zeros((1, 1, 28, 28), np.float32))
    with pytest.raises(InvalidArgument, match=r"^\(InvalidArgument\) row .*row0001\.npy: feed "
                                              r"`image` has shape \[1, 1, 28, 28\]") as info:
        scaleout.run_dataset(str(MODELS / "lenet" / "inference"), tmp_path, use_ray=True,
                             batch_size=1)
    assert "ray" not in type(info.value).__module__  # the error itself, not Ray's wrapper
    assert ray_2cpus.is_initialized()  # the caller's Ray


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
