"""The speed targets in one run: the bridge against onnxruntime and Paddle Inference.

    python benchmarks/zoo.py [--models NAME...] [--repeat 20] [--zoo DIR] [--peers PYTHON]
                             [--cold 11] [--stat median|best] [--burst-ms 20] [--compare DIR]
                             [--json FILE]

Per model, the bridge (a planned re-run with default flags, as benchmarks/models.py times it)
and each peer run in their own processes, loaded side by side and then timed in turn, a burst
of runs each (as many as one warm run says fill --burst-ms, at least 1, at most 500), the order
turning each round, a pause of 0.25 s between two turns
(see _peers.round_robin), so that noise on the shared machine hits them all alike; the medians
(--stat best: each side's fastest burst) are compared and each process's peak RSS is its own.
For ResNet-18 and ResNet-50 a third process times the model's ungrouped convolutions' im2col
GEMMs alone (its real filters against ready columns, numpy's BLAS, in the model's order) in the
same rounds: the floor that BLAS sets, printed against the bridge's run and onnxruntime's.
--compare DIR adds the bridge of another checkout (DIR's own benchmarks/zoo.py worker) to the
same rounds: before / after in one run.
Peers: onnxruntime (2 intra-op threads, sequential execution), Paddle Inference native
(disable_mkldnn, 2 CPU math threads) and with oneDNN (enable_mkldnn), all batch 1 on the
recorded feeds (benchmarks/_peers.py, run with the Python of a virtualenv holding paddlepaddle
2.6.2 and onnxruntime: --peers, by default .venv-paddle/bin/python when present; without it
only the bridge is timed).

Models: ResNet-18, ResNet-50 and MobileNetV2 at 224, MobileNetV2 and ShuffleNetV2 x1.0 at 64 from
--zoo DIR (default $FLUID_ZOO, else /work/zoo; made by tools/fixtures/gen_big_models.py, not
committed: skipped when absent), and the committed fixtures bert_tiny and transformer_tiny.
onnxruntime reads DIR/<model>/inference.onnx or <model fixture>/inference.onnx
(tools/fixtures/to_onnx.py).  Also: `chains`, the planned 200-op chains chain200_* against the
same math in bare numpy (us per op over numpy: the median over max(--repeat, 100) rounds of
(run - bare) / ops, each round timing 5 calls of each back to back), and `cold`, the time to
first output of
`fluid-compat run tests/fixtures/models/bert_tiny/inference --feed ...` in a fresh process
against onnxruntime's (interpreter start, import, session, first run), alternated, median of
--cold runs each.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from _peers import ENGINE_LABELS, ENGINES, Worker, cold_argv, peer_workers, round_robin, serve
from _peers import time_to_line as _time_to_line

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "models"
# name -> (where, label)
MODELS = {
    "resnet18": ("zoo", "ResNet-18 (224)"),
    "resnet50": ("zoo", "ResNet-50 (224)"),
    "mobilenet_v2": ("zoo", "MobileNetV2 (224)"),
    "mobilenet_v2_64": ("zoo", "MobileNetV2 (64)"),
    "shufflenet_v2_x1_0_64": ("zoo", "ShuffleNetV2 x1.0 (64)"),
    "bert_tiny": ("fixtures", "BERT-style encoder"),
    "transformer_tiny": ("fixtures", "nn.Transformer"),
}
CHAINS = ("chain200_scale", "chain200_add", "chain200_relu")
EXTRAS = ("chains", "cold")
COLD_MODEL = "bert_tiny"
# (model, peer engine, largest ratio bridge / peer)
SPEED_TARGETS = [
    ("resnet18", "ort", 1.5),
    ("resnet50", "ort", 1.5),
    ("mobilenet_v2", "ort", 3.0),
    ("mobilenet_v2_64", "pd_onednn", 1.0),
    ("bert_tiny", "pd_native", 1.0),
    ("transformer_tiny", "pd_native", 1.0),
]
CHAIN_TARGET_US = 1.0
# models whose run is timed against its im2col GEMMs alone (the "gemms" worker: the floor that
# numpy's BLAS sets under the convolutions)
GEMM_FLOOR_MODELS = ("resnet18", "resnet50")


def _env() -> dict:
    """The environment of the bridge's processes: this checkout first on the path."""
    path = os.environ.get("PYTHONPATH")
    return dict(os.environ, PYTHONPATH=str(ROOT) + (os.pathsep + path if path else ""))


# ---- in the bridge's worker processes ------------------------------------------------------

def _bridge_loader(model_dir: Path):
    from models import load_model

    return load_model(model_dir).run


def conv_gemms(program, scope) -> list[tuple[object, tuple[int, int, int]]]:
    """(filter, (M, K, N)) of each ungrouped conv2d in ``program`` with its im2col GEMM's
    dims at batch 1: the filter's output channels, input channels x window, and the output
    variable's planned positions."""
    block = program.global_block()
    found = []
    for op in block.ops:
        if op.type != "conv2d" or op.attr("groups") != 1:
            continue
        w = scope.find_var(op.input("Filter")[0]).value.data
        o, c, kh, kw = w.shape
        out = block.var(op.output("Output")[0]).shape
        spatial = out[1:3] if op.attr("data_format") == "NHWC" else out[2:]
        found.append((w, (o, c * kh * kw, int(spatial[0]) * int(spatial[1]))))
    return found


def _gemm_loader(model_dir: Path):
    """The GEMM floor of a model: its ungrouped convolutions' im2col GEMMs alone (the real
    filters, columns ready: no im2col, epilogue, pooling or dispatch), one run of them all
    in the model's order, on numpy's BLAS with the bridge's threads."""
    import numpy as np
    from models import load_model

    model = load_model(model_dir)
    rng = np.random.default_rng(0)
    layers = [(np.ascontiguousarray(np.reshape(w, (m, k)), dtype=np.float32),
               rng.standard_normal((k, n), dtype=np.float32), np.empty((m, n), np.float32))
              for w, (m, k, n) in conv_gemms(model.program, model.scope)]
    del model

    def run():
        for w, cols, out in layers:
            np.matmul(w, cols, out=out)

    return run


def _chain_one(model_dir: Path, repeat: int) -> dict:
    """A planned chain200_* run against the same math in bare numpy, timed back to back in each
    round; us_per_op is the median over the rounds of (run - bare) / ops (a paired difference:
    this machine switches between a fast and a ~2x slower state from one second to the next,
    which skews a difference of two medians taken over different rounds)."""
    from _timing import paired_difference_us
    from models import bare_chain_fn, load_model

    model = load_model(model_dir)
    run, program = model.run, model.program
    bare = bare_chain_fn(model_dir, model.feed, model.scope)
    if bare is None:
        raise SystemExit(f"{model_dir.name}: not a chain200_* fixture")
    ops = sum(1 for op in program.global_block().ops if op.type not in ("feed", "fetch"))
    run_us, bare_us, diff_us = paired_difference_us(run, bare, 5, repeat)
    return {"model": model_dir.name, "ops": ops, "bridge_ms": run_us / 1e3,
            "numpy_ms": bare_us / 1e3, "us_per_op": diff_us / ops}


# ---- the driver ----------------------------------------------------------------------------

def _onnx_file(name: str, model_dir: Path, zoo: Path | None) -> str | None:
    for cand in (model_dir / "inference.onnx",
                 zoo / name / "inference.onnx" if zoo is not None else None):
        if cand is not None and cand.is_file():
            return str(cand)
    return None


def measure_model(name: str, model_dir: Path, zoo: Path | None, peers: str | None,
                  repeat: int, burst_ms: float = 20.0, compare: Path | None = None) -> dict:
    bridge = Worker("bridge", [sys.executable, __file__, "--worker", str(model_dir)], _env())
    workers = [bridge]
    if name in GEMM_FLOOR_MODELS:  # the GEMMs alone, in the same rounds (a floor, not a peer)
        workers.append(Worker("gemms", [sys.executable, __file__, "--worker", str(model_dir),
                                        "--gemms"], _env()))
    if compare is not None:  # another checkout's bridge, its own worker, in the same rounds
        env = dict(os.environ, PYTHONPATH=str(compare))
        workers.append(Worker("compare", [sys.executable, str(compare / "benchmarks" / "zoo.py"),
                                          "--worker", str(model_dir)], env))
    if peers is not None:
        workers += peer_workers(peers, str(model_dir), _onnx_file(name, model_dir, zoo))
    round_robin(workers, repeat, burst_ms=burst_ms)
    row = {"model": name, "label": MODELS[name][1], "engines": {}}
    for w in workers:
        row["engines"][w.name] = {
            "median_ms": w.median_ms, "best_ms": min(w.times) if w.times else None,
            "peak_rss_mb": w.peak_rss_mb,
            "max_diff": w.info.get("max_diff"), "runs": len(w.times), "error": w.error}
    return row


def measure_chains(repeat: int) -> list[dict]:
    rows = []
    for name in CHAINS:
        model_dir = FIXTURES / name
        if not (model_dir / "inference.pdmodel").is_file():
            continue
        out = subprocess.run([sys.executable, __file__, "--chain", str(model_dir), "--repeat",
                              str(repeat)], capture_output=True, text=True, env=_env())
        if out.returncode != 0:
            print(f"{name}: failed: {out.stderr.strip().splitlines()[-1:]}")
            continue
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return rows


def build_kernels() -> None:
    """The compiled loops' ahead-of-time build (``fluid-compat build-kernels``: a one-off
    install step, as numba's cache is) before anything is timed, when numba is installed."""
    import importlib.util

    if importlib.util.find_spec("numba") is None:
        print("compiled loops: numba is not installed (the numpy path)")
        return
    out = subprocess.run([*_fluid_compat_argv(), "build-kernels"], env=_env(),
                         capture_output=True, text=True, check=False)
    print(f"compiled loops: {(out.stdout or out.stderr).strip()}")


def _fluid_compat_argv() -> list[str]:
    script = Path(sys.executable).parent / "fluid-compat"
    if script.is_file():
        return [str(script)]
    found = shutil.which("fluid-compat")
    if found:
        return [found]
    return [sys.executable, "-c", ("import sys; from fluid_compat.cli import main; "
            "sys.argv[0] = 'fluid-compat'; sys.exit(main())")]


def _strict_editable_finder() -> Path | None:
    """setuptools' import finder of a strict editable install of this project, when this
    Python has one: every start then imports pathlib, re and urllib for it (~20 ms here) before
    the bridge runs, which neither ``pip install .`` nor ``pip install -e . --config-settings
    editable_mode=compat`` (a plain path entry) costs."""
    import sysconfig

    found = sorted(Path(sysconfig.get_paths()["purelib"]).glob(
        "__editable___fluid_phi_bridge*_finder.py"))
    return found[0] if found else None


def measure_cold(n: int, zoo: Path | None, peers: str | None) -> dict:
    finder = _strict_editable_finder()
    if finder is not None:
        print(f"cold: {finder.name} is installed: each bridge start pays its imports (reinstall "
              "with pip install -e . --config-settings editable_mode=compat, or pip install .)")
    model_dir = FIXTURES / COLD_MODEL
    feeds = []
    for f in sorted(model_dir.glob("input_*.npy")):
        feeds += ["--feed", f"{f.stem.removeprefix('input_')}={f}"]
    sides = {"bridge": ([*_fluid_compat_argv(), "run", str(model_dir / "inference"), *feeds],
                        _env())}
    onnx = _onnx_file(COLD_MODEL, model_dir, zoo)
    skipped = {}
    if peers is None:
        skipped["ort"] = "no peers Python"
    elif onnx is None:
        skipped["ort"] = "no ONNX file"
    else:
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        sides["ort"] = (cold_argv(peers, str(model_dir), onnx), env)
    times: dict[str, list[float]] = {side: [] for side in [*sides, *skipped]}
    errors = dict(skipped)
    for side, (argv, env) in sides.items():  # once untimed: files in the page cache for both
        if _time_to_line(argv, "output 0", env) is None:
            errors[side] = "failed: " + " ".join(argv)
    for i in range(n):
        order = list(sides) if i % 2 == 0 else list(reversed(sides))
        for side in order:
            if side in errors:
                continue
            t = _time_to_line(sides[side][0], "output 0", sides[side][1])
            if t is not None:
                times[side].append(t)
    return {side: {"median_s": statistics.median(t) if t else None,
                   "best_s": min(t) if t else None, "runs": t, "error": errors.get(side)}
            for side, t in times.items()}


def _verdict(value: float | None, limit: float) -> str:
    if value is None:
        return "SKIPPED"
    return "MET" if value <= limit else "MISSED"


def targets(rows: list[dict], chains: list[dict], cold: dict | None,
            stat: str = "median") -> list[dict]:
    """The issue's targets judged on the medians (stat="best": the fastest run of each side)."""
    by_name = {r["model"]: r for r in rows}
    out = []
    for name, peer, limit in SPEED_TARGETS:
        label = f"{MODELS[name][1]} <= {limit:g}x {ENGINE_LABELS[peer]}"
        row = by_name.get(name)
        b = p = None
        if row is not None:
            b = row["engines"]["bridge"][f"{stat}_ms"]
            p = (row["engines"].get(peer) or {}).get(f"{stat}_ms")
        ratio = b / p if b is not None and p else None
        detail = (f"bridge {b:.3f} ms / {p:.3f} ms = {ratio:.2f}x" if ratio is not None
                  else "no measurement" if row is None else
                  f"{ENGINE_LABELS[peer]}: "
                  f"{(row['engines'].get(peer) or {}).get('error') or 'not run (no --peers)'}")
        floor = _gemm_floor(row, peer, stat) if row is not None else None
        if ratio is not None and floor is not None:
            detail += f" (its GEMMs alone: {floor:.2f}x)"
        out.append({"target": label, "value": ratio, "limit": limit,
                    "verdict": _verdict(ratio, limit), "detail": detail})
    worst = max(chains, key=lambda c: c["us_per_op"]) if chains else None
    out.append({"target": f"planned 200-op chain <= {CHAIN_TARGET_US:g} us/op over bare numpy",
                "value": worst["us_per_op"] if worst else None, "limit": CHAIN_TARGET_US,
                "verdict": _verdict(worst["us_per_op"] if worst else None, CHAIN_TARGET_US),
                "detail": (f"worst {worst['model']}: {worst['us_per_op']:.2f} us/op, paired "
                           f"({worst['bridge_ms']:.3f} ms against {worst['numpy_ms']:.3f} ms)"
                           if worst else "no chain measured")})
    ratios = []
    for r in rows:
        peers_rss = [(e["peak_rss_mb"], n) for n, e in r["engines"].items()
                     if n in ENGINES and e["peak_rss_mb"] is not None]
        mine = r["engines"]["bridge"]["peak_rss_mb"]
        if peers_rss and mine is not None:
            least, who = min(peers_rss)
            ratios.append((mine / least, r["model"], mine, least, who))
    if ratios:
        ratio, model, mine, least, who = max(ratios)
        detail = (f"worst {model}: bridge {mine:.0f} MB against {least:.0f} MB "
                  f"({ENGINE_LABELS[who]}), {ratio:.2f}x; {len(ratios)} models")
    else:
        ratio, detail = None, "no peer measured"
    # strictly below: equal is not below
    out.append({"target": "bridge peak RSS below every peer's", "value": ratio, "limit": 1.0,
                "verdict": "SKIPPED" if ratio is None else "MET" if ratio < 1 else "MISSED",
                "detail": detail})
    b = o = None
    if cold is not None:
        b = cold.get("bridge", {}).get(f"{stat}_s")
        o = cold.get("ort", {}).get(f"{stat}_s")
    ratio = b / o if b is not None and o else None
    out.append({"target": f"cold first output ({COLD_MODEL}) <= onnxruntime's", "value": ratio,
                "limit": 1.0, "verdict": _verdict(ratio, 1.0),
                "detail": (f"bridge {b:.3f} s / onnxruntime {o:.3f} s = {ratio:.2f}x"
                           if ratio is not None else
                           f"bridge {b:.3f} s; onnxruntime: {cold.get('ort', {}).get('error')}"
                           if b is not None else "not measured")})
    return out


def _gemm_floor(row: dict, peer: str, stat: str = "median") -> float | None:
    """The model's im2col GEMMs alone (the "gemms" worker) over the peer's run, or None."""
    g = (row["engines"].get("gemms") or {}).get(f"{stat}_ms")
    p = (row["engines"].get(peer) or {}).get(f"{stat}_ms")
    return g / p if g is not None and p else None


def _fmt(v, spec) -> str:
    return "-" if v is None else format(v, spec)


def report(rows, chains, cold, results, stat: str = "median") -> None:
    engines = ("bridge", *ENGINES)
    heads = {"bridge": "bridge", "ort": "onnxrt", "pd_native": "PI nat", "pd_onednn": "PI dnn"}
    print(f"{stat} ms per run (batch 1), ratio bridge/peer; peak RSS MB per process")
    print(f"{'model':<24}" + "".join(f"{heads[e]:>9}" for e in engines)
          + "".join(f"{'/' + heads[e]:>9}" for e in ENGINES)
          + "".join(f"{'MB ' + heads[e]:>10}" for e in engines))
    for r in rows:
        eng = r["engines"]
        ms = {e: (eng.get(e) or {}).get(f"{stat}_ms") for e in engines}
        rss = {e: (eng.get(e) or {}).get("peak_rss_mb") for e in engines}
        line = f"{r['label']:<24}" + "".join(f"{_fmt(ms[e], '.3f'):>9}" for e in engines)
        for e in ENGINES:
            ratio = ms["bridge"] / ms[e] if ms["bridge"] is not None and ms[e] else None
            line += f"{_fmt(ratio, '.2f'):>9}"
        line += "".join(f"{_fmt(rss[e], '.0f'):>10}" for e in engines)
        print(line)
    for r in rows:
        for e, v in r["engines"].items():
            if v["error"]:
                print(f"  {r['model']} {e}: {v['error']}")
            elif v["max_diff"] is not None and v["max_diff"] > 1e-4:
                print(f"  {r['model']} {e}: output differs from Paddle's recorded by "
                      f"{v['max_diff']:.3g} of its largest magnitude")
    for r in rows:
        eng = r["engines"]
        other = (eng.get("compare") or {}).get(f"{stat}_ms")
        if "compare" in eng and other is not None and eng["bridge"][f"{stat}_ms"]:
            ratios = ", ".join(f"/{heads[e]} {other / eng[e][f'{stat}_ms']:.2f}"
                               for e in ENGINES if (eng.get(e) or {}).get(f"{stat}_ms"))
            print(f"  {r['model']} --compare bridge: {other:.3f} ms "
                  f"(this bridge / it {eng['bridge'][f'{stat}_ms'] / other:.2f}; {ratios})")
        elif "compare" in eng:
            print(f"  {r['model']} --compare bridge: {eng['compare']['error']}")
    for r in rows:
        eng = r["engines"]
        g = (eng.get("gemms") or {}).get(f"{stat}_ms")
        if g is None:
            continue
        line = (f"  {r['model']}: its convolutions' im2col GEMMs alone (numpy's BLAS, columns "
                f"ready) {g:.3f} ms")
        b = eng["bridge"][f"{stat}_ms"]
        if b is not None:
            line += f"; the bridge's run is {b / g:.2f}x that"
        floor = _gemm_floor(r, "ort", stat)
        if floor is not None:
            line += f"; the GEMMs alone are {floor:.2f}x onnxruntime's whole run"
        print(line)
    for c in chains:
        print(f"{c['model']:<24}bridge {c['bridge_ms']:.3f} ms, bare numpy {c['numpy_ms']:.3f} ms"
              f" over {c['ops']} ops: {c['us_per_op']:.2f} us/op (median of the rounds' paired"
              " differences, not of the medians shown)")
    if cold is not None:
        for side, v in cold.items():
            runs = ", ".join(f"{t:.3f}" for t in v["runs"])
            print(f"cold first output {side:<7}" + (f"{stat} {v[f'{stat}_s']:.3f} s ({runs})"
                                                     if v[f"{stat}_s"] is not None
                                                     else f"- ({v['error']})"))
    print("targets:")
    for t in results:
        print(f"  {t['verdict']:<8}{t['target']}: {t['detail']}")
    counted = [t for t in results if t["verdict"] != "SKIPPED"]
    met = sum(t["verdict"] == "MET" for t in counted)
    print(f"{met} of {len(counted)} measured targets met"
          + (f", {len(results) - len(counted)} skipped" if len(counted) < len(results) else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", choices=list(MODELS) + list(EXTRAS),
                        default=list(MODELS) + list(EXTRAS), metavar="NAME",
                        help=f"subset of {', '.join(list(MODELS) + list(EXTRAS))}")
    parser.add_argument("--repeat", type=int, default=20, help="timed rounds per model")
    parser.add_argument("--zoo", type=Path,
                        default=Path(os.environ.get("FLUID_ZOO", "/work/zoo")),
                        help="directory of the generated models (default $FLUID_ZOO or /work/zoo)")
    default_peers = ROOT / ".venv-paddle" / "bin" / "python"
    parser.add_argument("--peers", metavar="PYTHON",
                        default=str(default_peers) if default_peers.is_file() else None,
                        help="Python with paddlepaddle 2.6.2 and onnxruntime (default "
                        ".venv-paddle/bin/python when present); 'none' skips the peers")
    parser.add_argument("--cold", type=int, default=11,
                        help="fresh processes per side (a cold start's spread here is about "
                             "+-25%%: with 5 the verdict flipped between runs)")
    parser.add_argument("--stat", choices=["median", "best"], default="median",
                        help="compare the medians (default) or each side's fastest run, "
                        "which a busy machine disturbs less")
    parser.add_argument("--burst-ms", type=float, default=20.0,
                        help="each turn runs the model back to back for at least this long "
                        "(longer: less of the first run after the pause)")
    parser.add_argument("--compare", type=Path, metavar="DIR",
                        help="also time the bridge of the checkout DIR (its benchmarks/zoo.py "
                        "worker, PYTHONPATH=DIR) in the same rounds: before / after in one run")
    parser.add_argument("--json", type=Path, help="write the measurements here")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--gemms", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--chain", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        serve(str(args.worker), lambda: (_gemm_loader if args.gemms else _bridge_loader)(
            args.worker))
        return
    if args.chain is not None:
        print(json.dumps(_chain_one(args.chain, args.repeat)))
        return

    build_kernels()
    peers = args.peers if args.peers not in (None, "none") else None
    if peers is not None and not Path(peers).is_file():
        print(f"peers: {peers} not found: timing the bridge alone")
        peers = None
    elif peers is None:
        print("peers: no Python with paddle / onnxruntime (--peers): timing the bridge alone")
    zoo = args.zoo if args.zoo.is_dir() else None
    rows = []
    for name in args.models:
        if name in EXTRAS:
            continue
        where, _label = MODELS[name]
        model_dir = (zoo / name if zoo is not None else None) if where == "zoo" else \
            FIXTURES / name
        if model_dir is None or not (model_dir / "inference.pdmodel").is_file():
            print(f"{name}: skipped (not in {args.zoo}: tools/fixtures/gen_big_models.py makes it)")
            continue
        print(f"{name} ...", flush=True)
        rows.append(measure_model(name, model_dir, zoo, peers, args.repeat, args.burst_ms,
                                  args.compare))
    chains = measure_chains(max(args.repeat, 100)) if "chains" in args.models else []
    cold = measure_cold(args.cold, zoo, peers) if "cold" in args.models and args.cold > 0 \
        else None
    results = targets(rows, chains, cold, args.stat)
    report(rows, chains, cold, results, args.stat)
    if args.json is not None:
        args.json.write_text(json.dumps({
            "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                        "loadavg": os.getloadavg()},
            "repeat": args.repeat, "stat": args.stat, "peers": peers,
            "zoo": str(zoo) if zoo else None,
            "models": rows, "chains": chains, "cold": cold, "targets": results}, indent=1))


if __name__ == "__main__":
    main()
