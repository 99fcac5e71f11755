"""Scale out on Ray: parity sweeps and batch inference (issue 15).

Ray is an optional extra (``pip install 'fluid-phi-bridge[ray]'``); only this module imports it,
and only when asked to.  Everything here also runs in-process, the same code path without Ray.

Parity sweeps: `sweep_items` turns paths (model directories, ``.pdmodel`` files, single-op case
files, directories and globs of them, ``@list.txt`` files) into items; `run_sweep` runs
``compare`` on each, locally or as one Ray task per item (the worker loads the program itself:
only paths travel), streaming results back in completion order.  A task whose worker dies is
retried (``retries``); an item that still fails is reported as failed, and the sweep stops
early once more than ``max_failures`` items failed.

Batch inference: `BatchPredictor` loads a program once (per Ray actor) and runs batches of
feeds row by row, so every row's output equals the in-process run of that row;
`ray.data.Dataset.map_batches(BatchPredictor, fn_constructor_args=(prefix,), concurrency=2,
batch_format="numpy")` uses it directly.  `run_dataset` runs a directory of ``.npy`` / ``.npz``
rows or a Parquet file through it, locally or on Ray, and writes the outputs beside the inputs.
"""

from __future__ import annotations

import contextlib
import glob
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import attrs
import numpy as np

from phi.core.errors import InvalidArgument, NotFound, PhiError, PreconditionNotMet

__all__ = [
    "RAY_MISSING",
    "BatchPredictor",
    "SweepItem",
    "SweepResult",
    "compare_item",
    "dataset_rows",
    "require_ray",
    "run_dataset",
    "run_sweep",
    "sweep_items",
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


def _init_ray(address: str | None):
    ray = require_ray()
    if not ray.is_initialized():
        ray.init(address=address or None, ignore_reinit_error=True, include_dashboard=False,
                 log_to_driver=False, logging_level="ERROR")
    with contextlib.suppress(AttributeError):  # rows come back in input order
        ray.data.DataContext.get_current().execution_options.preserve_order = True
    return ray


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
    ray = _init_ray(address)
    task = ray.remote(max_retries=retries, num_cpus=1)(compare_item)
    pending = {task.remote(item, place, pins, seed): i for i, item in enumerate(items)}
    done_count = 0
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
    return SweepResult(list(items), results, aborted, time.perf_counter() - t0)


def format_sweep(result: SweepResult) -> list[str]:
    """The sweep as a table: one line per item, then the totals."""
    rows = [("item", "kind", "ops both ways", "outputs", "diverged", "result")]
    for r in result.results:
        if r is None:
            continue
        s = r.get("summary") or {}
        verdict = ("FAILED: " + r["error"]) if r.get("error") else (
            "agree" if r.get("ok") else "DIVERGENCE")
        rows.append((r["item"], r["kind"], str(s.get("ops_compared", "-")),
                     str(s.get("outputs_compared", "-")), str(s.get("diverged", "-")), verdict))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join([*(c.ljust(w) for c, w in zip(row, widths, strict=False)), row[-1]])
             for row in rows]
    s = result.to_dict()["summary"]
    lines.append(f"sweep: {s['run']} of {s['items']} items run in {s['seconds']:.2f} s: "
                 f"{s['agree']} agree, {s['diverged']} diverged, {s['failed']} failed"
                 + ("; stopped early (--max-failures)" if result.aborted else ""))
    return lines


def stderr_progress(done: int, total: int, result: dict) -> None:
    """A one-line progress bar on stderr."""
    width = 30
    filled = width * done // max(total, 1)
    mark = "!" if result.get("error") else ("." if result.get("ok") else "x")
    sys.stderr.write(f"\r[{'#' * filled}{' ' * (width - filled)}] {done}/{total} {mark} "
                     f"{result.get('item', '')[-40:]:40s}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


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
            if path.suffix == ".npz":
                with np.load(path, allow_pickle=False) as z:
                    row = {k: z[k] for k in z.files}
            else:
                row = {self.feed_names[0]: np.load(path, allow_pickle=False)}
            for j, out in enumerate(self.run_row(row)):
                np.save(path.with_name(f"{path.stem}.output_{j}.npy"), out)
        return {"__path__": np.asarray(batch["__path__"])}  # the outputs are on disk


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
        ray = _init_ray(address)
        ds = ray.data.from_items(rows)
        ds = ds.map_batches(_FileRowPredictor, fn_constructor_args=(model_prefix, place),
                            concurrency=concurrency, batch_size=batch_size,
                            batch_format="numpy")
        ds.materialize()
    seconds = time.perf_counter() - t0
    return {"rows": len(rows), "seconds": seconds, "rows_per_s": len(rows) / seconds,
            "outputs": f"<row>.output_<i>.npy beside each row in {path}"}


def _run_parquet(model_prefix, path: Path, probe, use_ray, address, place, concurrency,
                 batch_size, t0) -> dict:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise PreconditionNotMet("Parquet datasets need pyarrow: " + RAY_MISSING) from None
    out_path = path.with_name(path.stem + ".outputs.parquet")
    if not use_ray:
        table = pq.read_table(path)
        batch = {c: table.column(c).to_numpy(zero_copy_only=False)
                 for c in table.column_names}
        result = probe(batch)
    else:
        ray = _init_ray(address)
        # read first: actors holding every CPU would starve the read tasks otherwise
        ds = ray.data.read_parquet(str(path)).materialize()
        ds = ds.map_batches(BatchPredictor, fn_constructor_args=(model_prefix, place),
                            concurrency=concurrency, batch_size=batch_size,
                            batch_format="numpy")
        parts = list(ds.iter_batches(batch_size=None, batch_format="numpy"))
        result = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]} if parts else {}
    n = len(next(iter(result.values()))) if result else 0
    columns = {k: pa.array([np.asarray(x).tolist() for x in v]) for k, v in result.items()
               if k.startswith("output_")}
    pq.write_table(pa.table(columns), out_path)
    seconds = time.perf_counter() - t0
    return {"rows": n, "seconds": seconds, "rows_per_s": n / seconds if seconds else 0.0,
            "outputs": str(out_path)}
