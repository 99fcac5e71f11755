"""The toolkit sweep: every model of a toolkit zoo on the bridge against Paddle Inference.

    python benchmarks/toolkits.py [--zoo DIR] [--models NAME...] [--repeat 7] [--burst-ms 50]
                                  [--budget-s 60] [--peers PYTHON] [--profile-worst 2]
                                  [--json FILE]

The zoo (default $TOOLKIT_ZOO, else /work/toolkit_zoo) is what tools/fixtures/gen_toolkit_zoo.py
writes: models built from PaddleClas, PaddleSeg, PaddleDetection, PaddleOCR and PaddleNLP's own
modeling code with random weights, exported by Paddle 2.6.2, with Paddle's recorded outputs.
Per model, two processes loaded side by side and then timed in alternation (benchmarks/
_peers.round_robin: a burst of runs each turn, as many as one warm run says fill --burst-ms,
the order turning each round, 0.25 s between turns): the bridge (fluid_compat Executor, a
planned re-run at steady state, BLAS on 1 thread) and Paddle Inference native (paddle.inference
Config + create_predictor, CPU, disable_mkldnn, 1 math thread; run with --peers, by default
/work/.venv-paddle/bin/python).  The rounds of a model are cut down so that its slowest side
spends about --budget-s timing.  Each worker compares its first run's outputs with the
recorded output_<i>.npy files (largest difference relative to the largest magnitude, per
output; "shape" when a shape differs) and answers its own peak RSS
(resource.getrusage).  The table: model, bridge ms, Paddle Inference ms, ratio, peak RSS
of both, the outputs' agreement; then the models the bridge cannot run (the error it gives),
and the per-op profiles (fluid_compat.profiler, op by op: fusion and compiled segments off)
of the --profile-worst slowest ratios.

This file imports only the standard library at the top: the Paddle side's worker is this
script run by the Paddle virtualenv's Python.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from _peers import Worker, round_robin
from _peers import serve as _peers_serve

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ZOO = Path(os.environ.get("TOOLKIT_ZOO", "/work/toolkit_zoo"))
DEFAULT_PEERS = Path("/work/.venv-paddle/bin/python")
THREADS = 1
# one thread for every BLAS / OpenMP pool either side may start
THREAD_ENV = {k: str(THREADS) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                        "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")}


# ---- worker side --------------------------------------------------------------------------

def _recorded(model_dir: Path):
    import numpy as np

    outs, i = [], 0
    while (model_dir / f"output_{i}.npy").is_file():
        outs.append(np.load(model_dir / f"output_{i}.npy"))
        i += 1
    return outs


def output_diffs(model_dir: Path, outputs) -> list:
    """Per recorded output: max |got - want| / max |want| (0 for empty), or "shape A != B"."""
    import numpy as np

    diffs = []
    for k, want in enumerate(_recorded(model_dir)):
        if k >= len(outputs):
            diffs.append("missing")
            continue
        got = np.asarray(outputs[k])
        if got.shape != want.shape:
            diffs.append(f"shape {list(got.shape)} != {list(want.shape)}")
            continue
        if not want.size:
            diffs.append(0.0)
            continue
        w, g = want.astype(np.float64), got.astype(np.float64)
        scale = max(float(np.max(np.abs(w))), 1e-30)
        d = float(np.max(np.abs(g - w))) / scale
        if d > 1e-3 and w.ndim == 2:  # detections: the same rows in another order?
            rows = float(np.max(np.abs(g[np.lexsort(g.T[::-1])] - w[np.lexsort(w.T[::-1])])))
            if rows / scale <= 1e-3:
                diffs.append(f"same rows, other order ({d:.1e} in place)")
                continue
        diffs.append(d)
    return diffs


def _bridge_loader(model_dir: Path):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    try:  # BLAS on one thread even where the pool ignores the environment
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=THREADS, user_api="blas")
    except ImportError:
        pass
    from models import load_model

    return load_model(model_dir).run


def _paddle_loader(model_dir: Path):
    import _peers

    _peers.THREADS = THREADS  # its Paddle Inference loader, on this sweep's thread count
    return _peers.load_paddle(str(model_dir), onednn=False)


def serve(model_dir: Path, load) -> None:
    """_peers.serve's protocol, with every output compared (not only output 0)."""
    _peers_serve(str(model_dir), load, lambda first: {"diffs": output_diffs(model_dir, first)})


def profile(model_dir: Path, runs: int) -> None:
    """The bridge's per-op profile of the first run and `runs` steady-state runs."""
    try:  # the timed worker's threads
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=THREADS, user_api="blas")
    except ImportError:
        pass
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from models import load_model

    from fluid_compat.profiler import Profiler

    from fluid_compat.operators.fusion import fusion_flags
    from phi.flags import set_flags

    # op by op (fusion passes and compiled segments off): a steady-state row per op type,
    # where the default run would show one row per fused segment
    set_flags({flag: False for flag in fusion_flags()})
    model = load_model(model_dir)
    with Profiler() as prof:
        for _ in range(1 + runs):
            model.run()
    print(prof.summary(top=6))


# ---- driver -------------------------------------------------------------------------------

def _env(bridge: bool) -> dict:
    env = dict(os.environ, **THREAD_ENV)
    if bridge:
        path = env.get("PYTHONPATH")
        env["PYTHONPATH"] = str(ROOT) + (os.pathsep + path if path else "")
    else:
        env.pop("PYTHONPATH", None)
        env.update(GLOG_minloglevel="3", FLAGS_call_stack_level="0")
    return env


def _rounds(workers: list[Worker], repeat: int, budget_s: float) -> int:
    """Rounds so that the slowest side spends about budget_s (at least 3, at most repeat)."""
    slowest = max((w.info["warm_ms"] for w in workers if w.wait_ready()), default=0.0)
    if slowest <= 0:
        return repeat
    return max(3, min(repeat, int(budget_s * 1e3 / slowest)))


def measure(model_dir: Path, peers: str | None, repeat: int, burst_ms: float,
            budget_s: float) -> dict:
    me = str(Path(__file__).resolve())
    workers = [Worker("bridge", [sys.executable, me, "--worker", "bridge", str(model_dir)],
                      _env(True))]
    if peers is not None:
        workers.append(Worker("paddle", [peers, me, "--worker", "paddle", str(model_dir)],
                              _env(False)))
    else:
        workers.append(Worker.skipped("paddle", "no --peers Python"))
    rounds = _rounds(workers, repeat, budget_s)
    round_robin(workers, rounds, burst_ms=burst_ms)
    meta_file = model_dir / "meta.json"
    meta = json.loads(meta_file.read_text()) if meta_file.is_file() else {}
    row = {"model": model_dir.name, "toolkit": meta.get("toolkit"), "rounds": rounds,
           "ops": meta.get("num_ops_all_blocks"), "engines": {}}
    for w in workers:
        row["engines"][w.name] = {"median_ms": w.median_ms,
                                  "best_ms": min(w.times) if w.times else None,
                                  "peak_rss_mb": w.peak_rss_mb, "diffs": w.info.get("diffs"),
                                  "first_ms": w.info.get("load_first_ms"),
                                  "runs": len(w.times), "error": w.error}
    return row


def _agree(diffs, tol=1e-3) -> str:
    if diffs is None:
        return "-"
    bad = [d for d in diffs if (isinstance(d, str) and not d.startswith("same rows"))
           or (not isinstance(d, str) and d > tol)]
    order = [d for d in diffs if isinstance(d, str) and d.startswith("same rows")]
    if order and not bad:
        return "ok, " + order[0]
    worst = max((d for d in diffs if not isinstance(d, str)), default=0.0)
    return f"ok ({worst:.0e})" if not bad else "DIFF " + ", ".join(
        d if isinstance(d, str) else f"{d:.1e}" for d in bad)


def _fmt(v, spec=".2f") -> str:
    return "-" if v is None else format(v, spec)


def report(rows: list[dict]) -> None:
    head = (f"{'model':28s} {'toolkit':16s} {'bridge ms':>10s} {'Paddle ms':>10s} {'ratio':>6s} "
            f"{'bridge MB':>9s} {'Paddle MB':>9s}  bridge outputs")
    print(head)
    print("-" * len(head))
    for r in rows:
        b, p = r["engines"]["bridge"], r["engines"]["paddle"]
        ratio = (b["median_ms"] / p["median_ms"]
                 if b["median_ms"] is not None and p["median_ms"] else None)
        r["ratio"] = ratio
        agree = _agree(b["diffs"]) if b["error"] is None else "FAILS (below)"
        print(f"{r['model']:28s} {r['toolkit'] or '-':16s} {_fmt(b['median_ms']):>10s} "
              f"{_fmt(p['median_ms']):>10s} {_fmt(ratio):>6s} {_fmt(b['peak_rss_mb'], '.0f'):>9s} "
              f"{_fmt(p['peak_rss_mb'], '.0f'):>9s}  {agree}")
    ok = [r for r in rows if r.get("ratio") is not None]
    if ok:
        slower = [r["model"] for r in ok if r["ratio"] > 1.0]
        heavier = [r["model"] for r in ok
                   if (r["engines"]["bridge"]["peak_rss_mb"] or 0)
                   > (r["engines"]["paddle"]["peak_rss_mb"] or 0)]
        print(f"\n{len(ok)} models timed; slower than Paddle Inference native: "
              f"{len(slower)} {slower}; more peak RSS: {len(heavier)} {heavier}")
    failed = [r for r in rows if r["engines"]["bridge"]["error"] is not None]
    if failed:
        print("\nThe bridge fails on:")
        for r in failed:
            print(f"  {r['model']}: {r['engines']['bridge']['error']}")
    pfail = [r for r in rows if r["engines"]["paddle"]["error"] is not None]
    for r in pfail:
        print(f"  (Paddle Inference) {r['model']}: {r['engines']['paddle']['error']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zoo", type=Path, default=DEFAULT_ZOO)
    ap.add_argument("--models", nargs="*")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--burst-ms", type=float, default=50.0)
    ap.add_argument("--budget-s", type=float, default=60.0)
    ap.add_argument("--peers", default=str(DEFAULT_PEERS) if DEFAULT_PEERS.is_file() else None)
    ap.add_argument("--profile-worst", type=int, default=2)
    ap.add_argument("--profile-runs", type=int, default=5)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--worker", nargs=2, metavar=("SIDE", "MODEL_DIR"), help=argparse.SUPPRESS)
    ap.add_argument("--profile", type=Path, metavar="MODEL_DIR", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        side, model_dir = args.worker[0], Path(args.worker[1])
        loader = _bridge_loader if side == "bridge" else _paddle_loader
        serve(model_dir, lambda: loader(model_dir))
        return
    if args.profile:
        profile(args.profile, args.profile_runs)
        return
    dirs = sorted(p for p in args.zoo.iterdir() if (p / "inference.pdmodel").is_file())
    if args.models:
        dirs = [d for d in dirs if d.name in args.models]
    rows = []
    for d in dirs:
        print(f"{d.name} ...", flush=True, file=sys.stderr)
        rows.append(measure(d, args.peers, args.repeat, args.burst_ms, args.budget_s))
    print(f"\nbridge vs Paddle Inference native, CPU, {THREADS} thread each, median ms per run "
          f"(zoo {args.zoo}, load {os.getloadavg()[0]:.1f})")
    report(rows)
    worst = sorted((r for r in rows if r.get("ratio") is not None), key=lambda r: -r["ratio"])
    for r in worst[:args.profile_worst]:
        print(f"\n== profile of {r['model']} (bridge, ratio {r['ratio']:.2f}, op by op): first "
              f"run, then {args.profile_runs} steady-state runs")
        out = subprocess.run([sys.executable, __file__, "--profile", str(args.zoo / r["model"]),
                              "--profile-runs", str(args.profile_runs)],
                             capture_output=True, text=True, env=_env(True))
        print(out.stdout.rstrip() or out.stderr.strip().splitlines()[-1:])
    if args.json is not None:
        args.json.write_text(json.dumps({"zoo": str(args.zoo), "threads": THREADS,
                                         "models": rows}, indent=1))


if __name__ == "__main__":
    main()
