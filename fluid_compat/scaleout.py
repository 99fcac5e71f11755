"""Scale out on Ray: parity sweeps and batch inference.

Ray is an optional extra (``pip install 'fluid-phi-bridge[ray]'``); only this module imports it,
and only when asked to.  Everything here also runs in-process, the same code path without Ray.

Parity sweeps: `sweep_items` turns paths (model directories, ``.pdmodel`` files, single-op case
files, directories and globs of them, ``@list.txt`` files) into items; `run_sweep` runs
``compare`` on each, locally or as one Ray task per item (the worker loads the program itself:
only paths travel), streaming results back in completion order.  A task whose worker dies is
retried (``retries``); an item that still fails is reported as failed, and the sweep stops
early once more than ``max_failures`` items failed.

Batch inference: `BatchPredictor` loads a program once and runs batches of feeds row by row,
so every row's output equals the in-process run of that row;
`ray.data.Dataset.map_batches(BatchPredictor, fn_constructor_args=(prefix,),
compute=ray.data.ActorPoolStrategy(size=2), batch_format="numpy")` uses it directly (one per
actor).  `run_dataset` runs a directory of ``.npy`` / ``.npz`` rows or a Parquet file through
it, locally or on Ray, and writes the outputs beside the inputs; on Ray as plain tasks
(``TaskPoolStrategy``), each worker process loading the program once and keeping it for the
batches it runs after: an actor pool's economy without its noise (Ray 2.60's core worker logs
an error line for every actor Ray Data makes, its constructor arguments being in the object
store while actor restarts are on; the options that would turn them off are deprecated) and
with Ray's task retries when a worker dies.

On Ray (the versions of the ``ray`` extra, ``RAY_VERSIONS``): a Ray this module starts (none
was initialised and no address given: a local one) is shut down when the sweep or the run
ends; one the caller initialised, or a cluster at ``address``, is left running (this driver
only disconnects from a cluster it connected to).  While it runs, Ray's own output is kept to
what a user needs: its workers' logs stay in their files (``log_to_driver=False``), Ray Data's
INFO records (the execution plan, the "Full logs are in ..." line, progress logged as lines off
a terminal) go to its log file only, its progress is one bar (the whole dataset's, not one per
operator), and an exception of ours in a worker comes back as itself (a PhiError the command
reports in one line).  The batch tasks of a dataset run leave a CPU to Ray Data's own tasks
(half of one on a one-CPU machine): on a small machine, workers holding every CPU starve the
tasks that feed them (and Ray warns "no available CPUs").
"""

from __future__ import annotations

import contextlib
import glob
import json
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
import numpy as np

from phi.core.errors import InvalidArgument, NotFound, PhiError, PreconditionNotMet

if TYPE_CHECKING:
    import argparse

__all__ = [
    "RAY_MISSING",
    "RAY_VERSIONS",
    "BatchPredictor",
    "SweepProgress",
    "SweepItem",
    "SweepResult",
    "compare_item",
    "dataset_rows",
    "is_sweep",
    "main_dataset",
    "main_sweep",
    "ray_session",
    "require_ray",
    "run_dataset",
    "run_sweep",
    "sweep_items",
    "worker_pool",
]

RAY_MISSING = ("Ray is not installed: `pip install 'fluid-phi-bridge[ray]'` (or `pip install "
               "'ray[data]'`) to run with --ray; without --ray everything runs in this process.")


def require_ray():
    """The ``ray`` module, or PreconditionNotMet saying what to install."""
    try:
        import ray
    except ImportError:
        raise PreconditionNotMet(RAY_MISSING) from None
    return ray


RAY_VERSIONS = ">=2.51,<3"
"""The Ray versions this module is written for (pyproject's ``ray`` extra says the same; a
test checks the installed one against it): ``map_batches(compute=TaskPoolStrategy(size=n))``,
which Ray 2.51 made the way to size a map (``concurrency=`` deprecated)."""


@contextlib.contextmanager
def ray_session(address: str | None = None):
    """``ray``, initialised: the caller's Ray when one is (left running), else one started
    (a local Ray, or a connection to ``address``) and shut down when the block ends."""
    ray = require_ray()
    started = False
    if not ray.is_initialized():
        ray.init(address=address or None, include_dashboard=False, log_to_driver=False,
                 logging_level="ERROR")
        started = True
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()


@contextlib.contextmanager
def _quiet_ray_data(ray):
    """Ray Data as the module doc says (settings of the current DataContext and Ray Data's
    console handler for this block, restored after it: a caller's Ray keeps its own)."""
    import logging

    context = ray.data.DataContext.get_current()
    wanted = {"print_on_execution_start": False, "enable_operator_progress_bars": False,
              "enable_rich_progress_bars": True, "use_ray_tqdm": False}
    saved = {k: getattr(context, k) for k in wanted if hasattr(context, k)}
    options = context.execution_options
    saved_order = options.preserve_order
    # the console handlers of Ray Data's logger (its file handler keeps every record)
    handlers = [h for h in logging.getLogger("ray.data").handlers
                if isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler)]
    levels = [h.level for h in handlers]
    try:
        for k in saved:
            setattr(context, k, wanted[k])
        options.preserve_order = True  # rows come back in input order
        for h in handlers:
            h.setLevel(max(h.level, logging.WARNING))
        with contextlib.suppress(ImportError):
            from ray.util.debug import log_once

            # Ray Data warns, once, that the operators' bars are off: what was asked for
            log_once("ray_data_progress_manager_global")
        yield
    finally:
        for k, v in saved.items():
            setattr(context, k, v)
        options.preserve_order = saved_order
        for h, level in zip(handlers, levels, strict=True):
            h.setLevel(level)


def worker_pool(ray, workers: int, batches: int) -> dict:
    """``map_batches``' arguments sizing the batch tasks of a dataset run of ``batches``
    batches: ``workers`` at once at most (no more than there are batches), each reserving one
    CPU or less, so that a CPU (half of one on a one-CPU Ray) stays free for Ray Data's own
    tasks (module doc)."""
    count = max(1, min(int(workers), int(batches)))
    cpus = float(ray.cluster_resources().get("CPU", 1.0))
    spare = 1.0 if cpus >= 2 else cpus / 2
    return {"compute": ray.data.TaskPoolStrategy(size=count),
            "num_cpus": min(1.0, max((cpus - spare) / count, 0.01))}


# -- items ----------------------------------------------------------------------------------------

@attrs.frozen
class SweepItem:
    """One thing to compare: a model (path prefix), a single-op case (.json), or a model with
    one feed file (a shadow run over a directory of feeds)."""

    kind: str  # "model" | "case" | "feed"
    path: str
    model: str = ""  # for "feed": the model prefix

    @property
    def label(self) -> str:
        return f"{self.model} <- {self.path}" if self.kind == "feed" else self.path


def _model_prefix(pdmodel: Path) -> str:
    return str(pdmodel.with_suffix(""))


def _items_in_dir(d: Path) -> list[SweepItem]:
    models = sorted(d.glob("*.pdmodel"))
    if models:
        return [SweepItem("model", _model_prefix(m)) for m in models]
    if (d / "__model__").is_file():
        return [SweepItem("model", str(d))]
    cases = [SweepItem("case", str(p)) for p in sorted(d.glob("*.json"))
             if p.name != "index.json" and p.with_suffix(".npz").is_file()]
    subdirs = [x for s in sorted(p for p in d.iterdir() if p.is_dir()) for x in _items_in_dir(s)]
    return cases + subdirs


def sweep_items(paths: Iterable[str]) -> list[SweepItem]:
    """Expand paths into sweep items (see the module docstring); NotFound for a path that names
    nothing to compare."""
    items: list[SweepItem] = []
    for raw in paths:
        if raw.startswith("@"):
            lines = Path(raw[1:]).read_text().split()
            items += sweep_items(lines)
            continue
        matches = sorted(glob.glob(raw)) if any(c in raw for c in "*?[") else [raw]
        for m in matches:
            p = Path(m)
            if p.is_dir():
                found = _items_in_dir(p)
            elif p.suffix == ".json" and p.with_suffix(".npz").is_file():
                found = [SweepItem("case", str(p))]
            elif p.suffix == ".pdmodel" and p.is_file():
                found = [SweepItem("model", _model_prefix(p))]
            elif Path(m + ".pdmodel").is_file():
                found = [SweepItem("model", m)]
            else:
                found = []
            if not found:
                raise NotFound(f"{m}: no model (.pdmodel), single-op case (.json + .npz) or "
                               "directory of them")
            items += found
    seen = set()
    return [i for i in items if not (i in seen or seen.add(i))]


def feed_items(model: str, feeds_dir: str | Path) -> list[SweepItem]:
    """A shadow run of ``model`` per feed file (``.npz`` of feed name -> array) in a directory."""
    files = sorted(Path(feeds_dir).glob("*.npz"))
    if not files:
        raise NotFound(f"{feeds_dir}: no .npz feed files")
    return [SweepItem("feed", str(f), model) for f in files]


# -- comparing one item ---------------------------------------------------------------------------

def compare_item(item: SweepItem, place: str = "cpu", pins=None, seed: int = 0) -> dict:
    """``compare`` on one item: the report as a dict, plus ``item``, ``kind``, ``ok`` and
    ``error`` (a bad input or a failing op is a failed item, not an exception)."""
    from fluid_compat.tools.compare import compare_case, compare_model

    t = time.perf_counter()
    try:
        if item.kind == "case":
            report = compare_case(item.path, place=place, pins=pins)
        elif item.kind == "feed":
            with np.load(item.path, allow_pickle=False) as z:
                feed = {k: z[k] for k in z.files}
            report = compare_model(item.model, feed=feed, place=place, pins=pins)
        else:
            report = compare_model(item.path, place=place, pins=pins, seed=seed)
        out = report.to_dict()
        out.update(ok=report.ok, error="")
    except PhiError as exc:
        out = {"ok": False, "error": f"{type(exc).__name__}: {exc.message}", "summary": {}}
    out.update(item=item.label, kind=item.kind, seconds=round(time.perf_counter() - t, 4))
    return out


@attrs.define
class SweepResult:
    """The results in item order (None for items never run when the sweep stopped early)."""

    items: list[SweepItem]
    results: list[dict | None]
    aborted: bool = False
    seconds: float = 0.0

    @property
    def failed(self) -> list[dict]:
        return [r for r in self.results if r is not None and r.get("error")]

    @property
    def diverged(self) -> list[dict]:
        return [r for r in self.results if r is not None and not r.get("error")
                and not r.get("ok")]

    @property
    def ok(self) -> bool:
        return not self.aborted and not self.failed and not self.diverged

    def to_dict(self) -> dict:
        return {"items": [r for r in self.results if r is not None],
                "summary": {"items": len(self.items),
                            "run": sum(r is not None for r in self.results),
                            "agree": sum(1 for r in self.results if r and r.get("ok")),
                            "diverged": len(self.diverged), "failed": len(self.failed),
                            "aborted": self.aborted, "seconds": round(self.seconds, 3)}}


def _failure(item: SweepItem, exc: BaseException) -> dict:
    return {"item": item.label, "kind": item.kind, "ok": False, "summary": {},
            "error": f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:300]}"}


def run_sweep(items: Sequence[SweepItem], *, use_ray: bool = False,
              address: str | None = None, place: str = "cpu", pins=None, seed: int = 0,
              max_failures: int | None = None, retries: int = 2,
              progress: Callable[[int, int, dict], None] | None = None) -> SweepResult:
    """Compare every item, in this process or as Ray tasks (see the module docstring).

    ``progress(done, total, result)`` is called as each result arrives."""
    t0 = time.perf_counter()
    results: list[dict | None] = [None] * len(items)
    failures = 0
    aborted = False
    if not use_ray:
        for i, item in enumerate(items):
            results[i] = compare_item(item, place, pins, seed)
            failures += bool(results[i].get("error"))
            if progress is not None:
                progress(i + 1, len(items), results[i])
            if max_failures is not None and failures > max_failures:
                aborted = True
                break
        return SweepResult(list(items), results, aborted, time.perf_counter() - t0)
    with ray_session(address) as ray:
        aborted = _ray_sweep(ray, items, results, place, pins, seed, max_failures, retries,
                             progress)
    return SweepResult(list(items), results, aborted, time.perf_counter() - t0)


def _ray_sweep(ray, items, results, place, pins, seed, max_failures, retries, progress) -> bool:
    """run_sweep's Ray part: fills ``results``; whether it stopped early."""
    task = ray.remote(max_retries=retries, num_cpus=1)(compare_item)
    pending = {task.remote(item, place, pins, seed): i for i, item in enumerate(items)}
    done_count = 0
    failures = 0
    aborted = False
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        ref = ready[0]
        i = pending.pop(ref)
        try:
            results[i] = ray.get(ref)
        except Exception as exc:  # a worker that died more often than retried, ...
            results[i] = _failure(items[i], exc)
        failures += bool(results[i].get("error"))
        done_count += 1
        if progress is not None:
            progress(done_count, len(items), results[i])
        if max_failures is not None and failures > max_failures:
            aborted = True
            for rest in pending:
                ray.cancel(rest, force=True)
            break
    return aborted


def format_sweep(result: SweepResult, width: int = 100) -> list[str]:
    """The sweep as a table at most ``width`` columns wide (fluid_compat.tools.tables): one
    row per item, then the totals."""
    from fluid_compat.tools.tables import render_table

    rows = []
    for r in result.results:
        if r is None:
            continue
        s = r.get("summary") or {}
        verdict = ("FAILED: " + r["error"]) if r.get("error") else (
            "agree" if r.get("ok") else "DIVERGENCE")
        rows.append((r["item"], r["kind"], s.get("ops_compared", "-"),
                     s.get("outputs_compared", "-"), s.get("diverged", "-"), verdict))
    lines = render_table(("item", "kind", "ops both ways", "outputs", "diverged", "result"),
                         rows, width=width).splitlines()
    s = result.to_dict()["summary"]
    lines.append(f"sweep: {s['run']} of {s['items']} items run in {s['seconds']:.2f} s: "
                 f"{s['agree']} agree, {s['diverged']} diverged, {s['failed']} failed"
                 + ("; stopped early (--max-failures)" if result.aborted else ""))
    return lines


class SweepProgress:
    """A sweep's progress bar on stderr (fluid_compat.tools.progress: rich), for
    ``run_sweep(progress=...)``: ``close()`` ends it, also when the sweep stopped early."""

    def __init__(self, total: int, enabled: bool = True) -> None:
        from fluid_compat.tools.progress import ProgressBar

        self.bar = ProgressBar(total, enabled, label="sweep")

    def __call__(self, done: int, total: int, result: dict) -> None:
        self.bar(done)
        if done >= total:
            self.close()

    def close(self) -> None:
        self.bar.close()


_STDERR_PROGRESS: list[SweepProgress] = []


def stderr_progress(done: int, total: int, result: dict) -> None:
    """``run_sweep``'s progress on stderr (a `SweepProgress` made at the first result and
    ended at the last)."""
    if not _STDERR_PROGRESS or done == 1:
        for old in _STDERR_PROGRESS:
            old.close()
        _STDERR_PROGRESS[:] = [SweepProgress(total)]
    _STDERR_PROGRESS[0](done, total, result)
    if done >= total:
        _STDERR_PROGRESS.clear()


# -- batch inference ------------------------------------------------------------------------------

class BatchPredictor:
    """Loads a saved inference model once; ``predictor(batch)`` runs a batch of feeds.

    ``batch`` maps each feed name to an array whose first axis indexes rows (Ray Data's numpy
    batch format); every row runs as its own feed with a batch dimension of 1 (so each row's
    output equals the in-process run of that row) and the outputs come back stacked, as
    ``output_<i>`` columns in fetch order.  Rows of a feed whose program shape has no batch
    axis run as they are.
    """

    def __init__(self, model_prefix: str, place: str = "cpu") -> None:
        from fluid_compat.executor import Executor
        from fluid_compat.framework.scope import Scope
        from fluid_compat.io import load_inference_model

        self.scope = Scope()
        self.program, self.feed_names, self.fetch_names = load_inference_model(
            model_prefix, scope=self.scope)
        self.executor = Executor(place)
        block = self.program.desc.global_block
        self._ranks = {n: len(block.var(n).shape or ()) for n in self.feed_names}
        self._dtypes = {n: block.var(n).dtype.to_numpy() for n in self.feed_names
                        if block.var(n).dtype is not None}

    def run_row(self, row: dict[str, np.ndarray]) -> list[np.ndarray]:
        feed = {}
        for name in self.feed_names:
            if name not in row:
                raise InvalidArgument(f"the batch has no column `{name}` (the model's feeds: "
                                      f"{', '.join(self.feed_names)})")
            a = np.asarray(row[name])
            feed[name] = a[None] if a.ndim + 1 == self._ranks[name] else a
        return self.executor.run(self.program, feed=feed, fetch_list=self.fetch_names,
                                 scope=self.scope)

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        n = len(next(iter(batch.values()))) if batch else 0
        outs: list[list[np.ndarray]] = [[] for _ in self.fetch_names]
        for i in range(n):
            row = {}
            for k, v in batch.items():
                if k in self._ranks:
                    a = _as_array(v[i])
                    if v.dtype == object and k in self._dtypes:  # a Parquet list column
                        a = a.astype(self._dtypes[k])
                    row[k] = a
            for j, out in enumerate(self.run_row(row)):
                outs[j].append(out[0] if out.ndim and out.shape[0] == 1 else out)
        result = {f"output_{j}": np.stack(o) if o else np.zeros((0,)) for j, o in
                  enumerate(outs)}
        for k, v in batch.items():  # pass the row keys through (file names ...)
            if k not in self._ranks:
                result[k] = v
        return result


def _as_array(v) -> np.ndarray:
    """A Parquet list cell (nested object arrays) as one numeric array."""
    a = np.asarray(v)
    if a.dtype == object:
        a = np.asarray([_as_array(x) for x in a])
    return a


def dataset_rows(path: str | Path, feed_names: Sequence[str]) -> list[dict]:
    """The rows of a dataset directory: ``<row>.npy`` (one feed) or ``<row>.npz`` (feed name
    -> array) files, each a row, in name order; outputs of earlier runs are skipped."""
    d = Path(path)
    files = sorted(p for p in d.iterdir() if p.suffix in (".npy", ".npz")
                   and ".output_" not in p.name)
    if not files:
        raise NotFound(f"{d}: no .npy / .npz row files")
    rows = []
    for f in files:
        if f.suffix == ".npz":
            rows.append({"__path__": str(f)})
        elif len(feed_names) != 1:
            raise InvalidArgument(f"{f.name}: a .npy row feeds one input, the model has "
                                  f"{len(feed_names)} ({', '.join(feed_names)}): use .npz rows")
        else:
            rows.append({"__path__": str(f)})
    return rows


class _FileRowPredictor(BatchPredictor):
    """BatchPredictor over rows given as file paths (only paths travel to Ray workers)."""

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        for p in batch["__path__"]:
            path = Path(str(p))
            try:
                if path.suffix == ".npz":
                    with np.load(path, allow_pickle=False) as z:
                        row = {k: z[k] for k in z.files}
                else:
                    row = {self.feed_names[0]: np.load(path, allow_pickle=False)}
            except (OSError, ValueError) as exc:  # not a numpy file, truncated, pickled
                raise InvalidArgument(f"row {path}: cannot be read as a numpy "
                                      f"{path.suffix} file ({exc})") from None
            try:
                outs = self.run_row(row)
            except PhiError as exc:  # which row, then what is wrong with it
                raise _naming_row(exc, path) from None
            for j, out in enumerate(outs):
                np.save(path.with_name(f"{path.stem}.output_{j}.npy"), out)
        return {"__path__": np.asarray(batch["__path__"])}  # the outputs are on disk


def _naming_row(exc: PhiError, path: Path) -> PhiError:
    """``exc`` with its message led by the row file it came from (the same class when it
    takes a message alone, else InvalidArgument)."""
    message = f"row {path}: {exc.message}"
    try:
        return type(exc)(message)
    except Exception:
        return InvalidArgument(message)


_WORKER_PREDICTORS: dict[tuple, BatchPredictor] = {}  # a worker process's loaded programs
_WORKER_LOCK = threading.Lock()
_WORKER_KEEPS = 4  # programs a worker keeps (the latest used)


def _model_stamp(model_prefix: str) -> tuple:
    """Sizes and times of the files a model prefix names: a program edited on disk since a
    worker loaded it is loaded again."""
    stamp = []
    for name in (model_prefix + ".pdmodel", model_prefix + ".pdiparams",
                 str(Path(model_prefix) / "__model__")):
        with contextlib.suppress(OSError):
            st = Path(name).stat()
            stamp.append((name, st.st_size, st.st_mtime_ns))
    return tuple(stamp)


_ERROR_COLUMN = "__error__"


def _predict_in_worker(batch: dict[str, np.ndarray], kind: type, model_prefix: str,
                       place: str) -> dict[str, np.ndarray]:
    """A Ray task's batch through the ``kind`` predictor of ``model_prefix``, which the worker
    process loads once and keeps (Ray reuses a job's worker processes): what an actor pool
    gives, as plain tasks (module doc).  A PhiError (a bad row, a model that does not load)
    comes back as the batch's only column, ``_ERROR_COLUMN`` (the pickled error), for
    `_raise_worker_error` to raise on the driver as itself: raised here, Ray would log it
    with its worker traceback and hand the driver a UserCodeException without it."""
    import pickle

    key = (kind, model_prefix, place, _model_stamp(model_prefix))
    try:
        with _WORKER_LOCK:
            predictor = _WORKER_PREDICTORS.pop(key, None)
            if predictor is None:
                predictor = kind(model_prefix, place)
            _WORKER_PREDICTORS[key] = predictor  # the latest used last
            while len(_WORKER_PREDICTORS) > _WORKER_KEEPS:
                del _WORKER_PREDICTORS[next(iter(_WORKER_PREDICTORS))]
        return predictor(batch)
    except PhiError as exc:
        try:
            data = pickle.dumps(exc)
        except Exception:  # an unpicklable argument: its class and message
            data = pickle.dumps(PreconditionNotMet(f"{type(exc).__name__}: {exc.message}"))
        return {_ERROR_COLUMN: np.asarray([data], dtype=object)}


def _raise_worker_error(part: dict[str, np.ndarray]) -> None:
    """Raise the PhiError a batch came back with (`_predict_in_worker`), if any."""
    if _ERROR_COLUMN in part and len(part[_ERROR_COLUMN]):
        import pickle

        raise pickle.loads(part[_ERROR_COLUMN][0])


def run_dataset(model_prefix: str, path: str | Path, *, use_ray: bool = False,
                address: str | None = None, place: str = "cpu", concurrency: int = 2,
                batch_size: int = 16) -> dict:
    """Run every row of a dataset (a directory of row files, or a Parquet file with a column
    per feed) and write the outputs beside the inputs: ``<row>.output_<i>.npy`` for row files,
    ``<file>.outputs.parquet`` (columns output_<i>) for Parquet.  Returns counts and timing."""
    t0 = time.perf_counter()
    path = Path(path)
    probe = BatchPredictor(model_prefix, place)
    if path.suffix == ".parquet":
        return _run_parquet(model_prefix, path, probe, use_ray, address, place, concurrency,
                            batch_size, t0)
    rows = dataset_rows(path, probe.feed_names)
    if not use_ray:
        predictor = _FileRowPredictor(model_prefix, place)
        for start in range(0, len(rows), batch_size):
            chunk = rows[start:start + batch_size]
            predictor({"__path__": np.asarray([r["__path__"] for r in chunk])})
    else:
        with ray_session(address) as ray, _quiet_ray_data(ray):
            pool = worker_pool(ray, concurrency, -(-len(rows) // batch_size))
            ds = ray.data.from_items(rows)
            ds = ds.map_batches(_predict_in_worker,
                                fn_args=(_FileRowPredictor, model_prefix, place),
                                batch_size=batch_size, batch_format="numpy", **pool)
            for part in ds.iter_batches(batch_size=None, batch_format="numpy"):
                _raise_worker_error(part)  # the first error ends the run
    seconds = time.perf_counter() - t0
    return {"rows": len(rows), "seconds": seconds, "rows_per_s": len(rows) / seconds,
            "outputs": f"<row>.output_<i>.npy beside each row in {path}"}


def _run_parquet(model_prefix, path: Path, probe, use_ray, address, place, concurrency,
                 batch_size, t0) -> dict:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise PreconditionNotMet("Parquet datasets need pyarrow, which is not installed: "
                                 "`pip install pyarrow`") from None
    out_path = path.with_name(path.stem + ".outputs.parquet")
    if not use_ray:
        table = pq.read_table(path)
        batch = {c: table.column(c).to_numpy(zero_copy_only=False)
                 for c in table.column_names}
        result = probe(batch)
    else:
        with ray_session(address) as ray, _quiet_ray_data(ray):
            # read first: its tasks then never wait for CPUs the batch tasks hold
            ds = ray.data.read_parquet(str(path)).materialize()
            pool = worker_pool(ray, concurrency, -(-ds.count() // batch_size))
            if ds.num_blocks() < pool["compute"].size:  # a block feeds one task at a time
                ds = ds.repartition(pool["compute"].size)
            ds = ds.map_batches(_predict_in_worker,
                                fn_args=(BatchPredictor, model_prefix, place),
                                batch_size=batch_size, batch_format="numpy", **pool)
            parts = []
            for part in ds.iter_batches(batch_size=None, batch_format="numpy"):
                _raise_worker_error(part)  # the first error ends the run
                parts.append(part)
        result = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]} if parts else {}
    n = len(next(iter(result.values()))) if result else 0
    columns = {k: pa.array([np.asarray(x).tolist() for x in v]) for k, v in result.items()
               if k.startswith("output_")}
    pq.write_table(pa.table(columns), out_path)
    seconds = time.perf_counter() - t0
    return {"rows": n, "seconds": seconds, "rows_per_s": n / seconds if seconds else 0.0,
            "outputs": str(out_path)}


# -- the command lines that scale out (fluid-compat compare on a sweep, run --dataset) ----------

def is_sweep(args: argparse.Namespace) -> bool:
    """Whether the ``compare`` command line names a sweep rather than one model."""
    if args.ray is not None or args.feeds_dir is not None or len(args.model) > 1:
        return True
    if len(args.model) == 1:
        m = args.model[0]
        return (m.startswith("@") or any(c in m for c in "*?[")
                or (Path(m).is_dir() and not (Path(m) / "__model__").is_file()))
    return False


def main_sweep(args: argparse.Namespace) -> int:
    """``fluid-compat compare`` on a sweep (several models or cases, a directory, a glob,
    @LIST.txt, ``--feeds-dir`` or ``--ray``)."""
    from fluid_compat.tools.run import pins_from_args

    try:
        pins = pins_from_args(args.pin)
        if args.feeds_dir is not None:
            if len(args.model) != 1:
                raise InvalidArgument("--feeds-dir takes exactly one MODEL")
            items = feed_items(args.model[0], args.feeds_dir)
        else:
            items = sweep_items(args.model)
        if args.ray is not None:
            require_ray()
        progress = (stderr_progress if sys.stderr.isatty() and args.format == "table"
                    else None)
        result = run_sweep(items, use_ray=args.ray is not None, address=args.ray or None,
                           place=args.place, pins=pins, seed=args.seed,
                           max_failures=args.max_failures, progress=progress)
    except PhiError as exc:
        print(f"fluid-compat compare: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(result.to_dict(), indent=1))
    else:
        print("\n".join(format_sweep(result)))
    return 0 if result.ok else 1


def main_dataset(args: argparse.Namespace) -> int:
    """``run MODEL --dataset PATH [--ray]``: every row of the dataset, outputs beside it."""
    if args.model is None:
        print("fluid-compat run: --dataset needs a MODEL_PREFIX", file=sys.stderr)
        return 2
    problem = _dataset_problem(args.dataset)
    if problem:
        print(f"fluid-compat run: --dataset {args.dataset}: {problem}", file=sys.stderr)
        return 2
    try:
        if args.ray is not None:
            require_ray()
        stats = run_dataset(args.model, args.dataset, use_ray=args.ray is not None,
                            address=args.ray or None, place=args.place,
                            concurrency=args.concurrency)
    except PhiError as exc:
        print(f"fluid-compat run: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:  # a row file that numpy cannot read
        print(f"fluid-compat run: --dataset {args.dataset}: {exc}", file=sys.stderr)
        return 1
    where = "on Ray" if args.ray is not None else "in this process"
    print(f"{stats['rows']} rows {where} in {stats['seconds']:.2f} s "
          f"({stats['rows_per_s']:.1f} rows/s); outputs: {stats['outputs']}")
    return 0


def _dataset_problem(path: Path) -> str | None:
    """Why ``--dataset PATH`` cannot be read, in words; None when it can be tried."""
    if not path.exists():
        return "no such file or directory"
    if path.is_dir():
        return None
    if path.suffix != ".parquet":
        return ("a file, and not a Parquet one (.parquet): a dataset is a directory of row "
                "files (<row>.npy or <row>.npz) or a Parquet file")
    import importlib.util

    if importlib.util.find_spec("pyarrow") is None:
        return "Parquet datasets need pyarrow, which is not installed: `pip install pyarrow`"
    return None
