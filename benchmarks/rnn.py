"""Recurrent classifiers against Paddle Inference, in one run (the rnn kernel).

    python benchmarks/rnn.py [--models NAME...] [--repeat 15] [--peers PYTHON] [--zoo DIR]
                             [--compare DIR] [--burst-ms 20] [--json FILE]
    python benchmarks/rnn.py --profile NAME [--runs 20]

Models: paddlenlp-style seq2vec text classifiers (embedding, 2-layer bidirectional LSTM / GRU
with sequence lengths, pooling, two Linear layers; tools/fixtures/gen_rnn_models.py): the
committed fixtures bilstm_seq2vec and bigru_seq2vec (embedding and hidden 32) and, from --zoo
DIR (default $FLUID_ZOO, else /work/zoo; not committed, skipped when absent),
bilstm_seq2vec_h64 and bigru_seq2vec_h64 (64: the measured size); and lstm_tiny; all on their
recorded feeds (batch 4, seq 32; lstm_tiny [2, 6, 4]).  Each side runs in its own process on
ONE thread (OMP / OpenBLAS / MKL threads 1, Paddle's cpu_math_library_num_threads 1): the
bridge (a planned re-run with default flags, as benchmarks/models.py times it) and Paddle
Inference native (paddle.inference.Config, switch_ir_optim(True), disable_mkldnn) with the
Python of a virtualenv holding paddlepaddle 2.6.2 (--peers, by default .venv-paddle/bin/python
beside or above the checkout).  They load side by side, then run in turn, a burst each (as
many runs as fill --burst-ms), the order turning each round, a pause between turns
(benchmarks/_peers.round_robin), so noise on the shared machine hits both alike; two tables
from the one run compare the medians of the bursts and each side's fastest burst (steadier
when other processes load the machine).  --compare DIR adds the bridge of another checkout
(its phi / fluid_compat first on the path, this file's worker) to the same rounds: before /
after in one run.

--profile NAME: the bridge alone, in this process: the steady-state run time, the executor's
per-op profile (fluid_compat.profiler.Profiler) and cProfile's functions by own time.

This file imports only the standard library at the top: the Paddle worker runs it with the
Paddle virtualenv's Python.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from _peers import Worker, round_robin, serve

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "models"
# name -> (where, label)
MODELS = {
    "bilstm_seq2vec_h64": ("zoo", "BiLSTM seq2vec h64 (last h)"),
    "bigru_seq2vec_h64": ("zoo", "BiGRU seq2vec h64 (mean)"),
    "bilstm_seq2vec": ("fixtures", "BiLSTM seq2vec h32 (last h)"),
    "bigru_seq2vec": ("fixtures", "BiGRU seq2vec h32 (mean)"),
    "lstm_tiny": ("fixtures", "BiLSTM tiny (h8, [2, 6, 4])"),
}
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "NUMBA_NUM_THREADS": "1"}


# ---- workers ----------------------------------------------------------------------------------

def _bridge_loader(model_dir: Path):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from models import load_model

    return load_model(model_dir).run


def _paddle_loader(model_dir: Path):
    import _peers

    _peers.THREADS = 1  # Paddle Inference native, one thread, oneDNN off, IR passes on
    return _peers.load_paddle(str(model_dir), onednn=False)


# ---- driver -----------------------------------------------------------------------------------

def _default_peers() -> str | None:
    for cand in (ROOT / ".venv-paddle", ROOT.parent / ".venv-paddle"):
        py = cand / "bin" / "python"
        if py.is_file():
            return str(py)
    return None


def _env(pythonpath: str | None) -> dict:
    env = dict(os.environ, **ONE_THREAD, GLOG_minloglevel="3", FLAGS_call_stack_level="0")
    env.pop("PYTHONPATH", None)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return env


def locate(name: str, zoo: Path) -> Path:
    return (zoo if MODELS[name][0] == "zoo" else FIXTURES) / name


def measure(name: str, model_dir: Path, peers: str | None, compare: Path | None, repeat: int,
            burst_ms: float) -> dict:
    me = [sys.executable, __file__, "--worker", "bridge", str(model_dir)]
    workers = [Worker("bridge", me, _env(str(ROOT)))]
    if compare is not None:
        workers.append(Worker("compare", me, _env(str(compare))))
    if peers is not None:
        workers.append(Worker("paddle", [peers, __file__, "--worker", "paddle", str(model_dir)],
                              _env(None)))
    round_robin(workers, repeat, burst_ms=burst_ms)
    return {"model": name, "label": MODELS[name][1], "engines": {
        w.name: {"median_ms": w.median_ms, "best_ms": min(w.times) if w.times else None,
                 "peak_rss_mb": w.peak_rss_mb, "max_diff": w.info.get("max_diff"),
                 "error": w.error} for w in workers}}


def _fmt(v, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def report(rows: list[dict], stat: str = "median") -> None:
    print(f"{stat} ms per run, one thread each; ratio = bridge / Paddle Inference native; "
          "peak RSS MB; diff = max |output 0 - Paddle's recorded| / max |recorded|")
    head = f"{'model':<34} {'bridge':>8} {'PI nat':>8} {'ratio':>6}"
    compared = any("compare" in r["engines"] for r in rows)
    if compared:
        head += f" {'before':>8} {'speedup':>7}"
    print(head + f" {'RSS br':>7} {'RSS PI':>7} {'diff':>8}")
    for r in rows:
        e = r["engines"]
        b, p = e["bridge"][f"{stat}_ms"], e.get("paddle", {}).get(f"{stat}_ms")
        line = (f"{r['label']:<34} {_fmt(b, '8.3f')} {_fmt(p, '8.3f')} "
                f"{_fmt(b / p if b and p else None, '6.2f')}")
        if compared:
            c = e["compare"][f"{stat}_ms"]
            line += f" {_fmt(c, '8.3f')} {_fmt(c / b if b and c else None, '7.2f')}"
        line += (f" {_fmt(e['bridge']['peak_rss_mb'], '7.0f')} "
                 f"{_fmt(e.get('paddle', {}).get('peak_rss_mb'), '7.0f')} "
                 f"{_fmt(e['bridge']['max_diff'], '8.1e')}")
        print(line)
        for engine, v in e.items():
            if v["error"]:
                print(f"  {engine}: {v['error']}")


def profile(name: str, directory: Path, runs: int) -> None:
    """The bridge's steady state, its per-op profile and cProfile's top functions."""
    import cProfile
    import io
    import pstats
    import statistics
    import time

    for key, value in ONE_THREAD.items():  # before numpy's import: BLAS reads them once
        os.environ.setdefault(key, value)
    sys.path.insert(0, str(ROOT))
    from fluid_compat.profiler import Profiler

    run = _bridge_loader(directory)
    for _ in range(5):
        run()
    times = []
    for _ in range(max(runs, 10)):
        t0 = time.perf_counter()
        run()
        times.append((time.perf_counter() - t0) * 1e3)
    print(f"{name}: steady state {statistics.median(times):.3f} ms median of {len(times)} "
          f"(min {min(times):.3f})")
    with Profiler() as p:
        for _ in range(runs):
            run()
    print(p.summary())
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(runs):
        run()
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(15)
    print(f"cProfile of {runs} runs, by own time:")
    print("\n".join(ln for ln in out.getvalue().splitlines() if ln.strip())[:5000])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", nargs=2, metavar=("ENGINE", "MODEL_DIR"), help=argparse.SUPPRESS)
    ap.add_argument("--models", nargs="+", choices=list(MODELS), default=list(MODELS))
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--burst-ms", type=float, default=20.0)
    ap.add_argument("--peers", default=_default_peers())
    ap.add_argument("--compare", type=Path)
    ap.add_argument("--zoo", type=Path, default=Path(os.environ.get("FLUID_ZOO", "/work/zoo")))
    ap.add_argument("--json", type=Path)
    ap.add_argument("--profile", choices=list(MODELS))
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    if args.worker:
        engine, directory = args.worker[0], Path(args.worker[1])
        loader = _paddle_loader if engine == "paddle" else _bridge_loader
        serve(str(directory), lambda: loader(directory))
        return
    if args.profile:
        profile(args.profile, locate(args.profile, args.zoo), args.runs)
        return
    args.peers = args.peers or None  # --peers "": the bridge alone
    if args.peers is None:
        print("no Paddle virtualenv (--peers): the bridge alone")
    rows = []
    for m in args.models:
        where = locate(m, args.zoo)
        if not (where / "inference.pdmodel").is_file():
            print(f"{m}: no {where} (tools/fixtures/gen_rnn_models.py makes it): skipped")
            continue
        rows.append(measure(m, where, args.peers, args.compare, args.repeat, args.burst_ms))
    report(rows, "median")
    report(rows, "best")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
