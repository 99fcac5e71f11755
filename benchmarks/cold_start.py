"""Cold start: time to first output of ``fluid-compat run`` in a fresh process.

    python benchmarks/cold_start.py [--runs 7] [--model DIR] [--compare TREE ...] [--no-pyc]
                                    [--onnx MODEL.onnx [--onnx-python PYTHON]]

Per source tree (this repository, and each ``--compare`` tree such as another checkout, timed
round-robin in the same run so that a busy machine slows them alike), the median over fresh
processes of:

- ``first output``: spawn -> the first line ``fluid-compat run MODEL --feed ...`` prints (the
  run is done by then: it prints after the model ran), and ``exit``: spawn -> exit;
- ``import``: spawn -> the line ``python -c "import fluid_compat.cli; print(1)"`` prints;
- ``python+numpy``: the same for ``import numpy`` (the floor: onnxruntime imports it too).

With ``--onnx MODEL.onnx`` (the same model exported to ONNX) onnxruntime is timed alongside, in
the same round-robin: a fresh ``python`` (``--onnx-python``, default the fixtures' Paddle venv
``.venv-paddle`` beside this checkout's ``.venv``) that imports onnxruntime, loads the model,
runs it on the same feeds and prints its first output, the target's own measure (the same
process ``benchmarks/zoo.py`` times: ``_peers.COLD_SCRIPT``).

By default every tree's bytecode is cached (``PYTHONPYCACHEPREFIX`` in a temporary directory,
one warm-up process first), as an installed package has it; ``--no-pyc`` compiles every module
in every process instead (``PYTHONDONTWRITEBYTECODE=1``), which is slower and noisier.

Then a breakdown of this repository's cold start from one more process: wall time per stage
(import, argument parser, model load, first run, second run), the largest imports by own time
(``-X importtime``) and the project functions that take the most of the first run (cProfile).

Target: no slower than onnxruntime's 0.16-0.32 s on this machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _peers import cold_argv

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MODEL = ROOT / "tests" / "fixtures" / "models" / "bert_tiny"
TARGET_S = (0.16, 0.32)  # onnxruntime's range as first measured (used without --onnx)

_STAGES = r"""
import sys, time
t0 = time.perf_counter()
import numpy as np
t1 = time.perf_counter()
import fluid_compat.cli
t2 = time.perf_counter()
fluid_compat.cli._spare_the_collector()  # as fluid_compat.cli.main does for the program
args = fluid_compat.cli.build_parser("run").parse_args(sys.argv[1:])
t3 = time.perf_counter()
from fluid_compat.executor import Executor
from fluid_compat.framework.scope import Scope
from fluid_compat.io import load_inference_model
from fluid_compat.tools.run import load_feed
scope = Scope()
program, feeds, fetches = load_inference_model(args.model, scope=scope)
feed, _ = load_feed(program, feeds, args.feed)
t4 = time.perf_counter()
exe = Executor()
t5 = time.perf_counter()
exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
t6 = time.perf_counter()
exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
t7 = time.perf_counter()
for name, dt in (("import numpy", t1 - t0), ("import fluid_compat.cli (numpy excluded)", t2 - t1),
                 ("argument parser", t3 - t2), ("load model + feeds", t4 - t3),
                 ("first run", t6 - t5), ("second run", t7 - t6)):
    print(f"STAGE {name}\t{dt * 1e3:.1f}")
"""

_PROFILE_RUN = r"""
import sys, cProfile, pstats, io
import fluid_compat.cli
args = fluid_compat.cli.build_parser("run").parse_args(sys.argv[1:])
from fluid_compat.executor import Executor
from fluid_compat.framework.scope import Scope
from fluid_compat.io import load_inference_model
from fluid_compat.tools.run import load_feed
scope = Scope()
program, feeds, fetches = load_inference_model(args.model, scope=scope)
feed, _ = load_feed(program, feeds, args.feed)
exe = Executor()
prof = cProfile.Profile()
prof.enable()
exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
prof.disable()
out = io.StringIO()
stats = pstats.Stats(prof, stream=out)
rows = []
for (file, line, fn), (cc, nc, tt, ct, callers) in stats.stats.items():
    rows.append((ct, tt, nc, f"{file.rsplit('/', 2)[-2:]!s}:{line}({fn})"))
rows.sort(reverse=True)
total = rows[0][0] if rows else 0.0
print(f"PROFTOTAL\t{total * 1e3:.1f}")
for ct, tt, nc, where in rows[:400]:
    print(f"PROF\t{ct * 1e3:.1f}\t{tt * 1e3:.1f}\t{nc}\t{where}")
"""




def _env(tree: Path, pyc: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)
    env.pop("PYTHONPYCACHEPREFIX", None)
    if pyc is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pyc)
    return env


def _run_args(model: Path) -> list[str]:
    feeds = sorted(model.glob("input_*.npy"))
    args = ["run", str(model / "inference")]
    for f in feeds:
        args += ["--feed", f"{f.stem[len('input_'):]}={f}"]
    return args


def _time_first_line(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(spawn -> first stdout line, spawn -> exit) in seconds."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    t1 = time.perf_counter()
    _rest, err = proc.communicate()
    t2 = time.perf_counter()
    if proc.returncode != 0 or not first:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err.decode()}")
    return t1 - t0, t2 - t0


def _breakdown(tree: Path, env: dict[str, str], model: Path, top: int) -> None:
    py = sys.executable
    args = _run_args(model)
    out = subprocess.run([py, "-c", _STAGES, *args], env=env, cwd=tree, check=True,
                         capture_output=True, text=True).stdout
    print("\nstages (one process, ms):")
    for line in out.splitlines():
        if line.startswith("STAGE "):
            name, ms = line[6:].split("\t")
            print(f"  {name:44s} {float(ms):8.1f}")
    err = subprocess.run([py, "-X", "importtime", "-c", "import fluid_compat.cli"], env=env,
                         cwd=tree, check=True, capture_output=True, text=True).stderr
    rows = []
    for line in err.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, cum, name = line[len("import time:"):].split("|")
        rows.append((int(own), int(cum), name.strip()))
    total = max((c for _, c, _ in rows), default=0)
    by_pkg: dict[str, int] = {}
    for own, _, name in rows:
        pkg = name.split(".")[0]
        by_pkg[pkg] = by_pkg.get(pkg, 0) + own
    print(f"\nimport fluid_compat.cli: {total / 1e3:.1f} ms in {len(rows)} modules; own time by "
          "top-level package (ms):")
    for pkg, us in sorted(by_pkg.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {pkg:44s} {us / 1e3:8.1f}")
    print("largest imports by own time (ms):")
    for own, cum, name in sorted(rows, reverse=True)[:top]:
        print(f"  {name:44s} {own / 1e3:8.1f}  (with its imports {cum / 1e3:.1f})")
    out = subprocess.run([py, "-c", _PROFILE_RUN, *args], env=env, cwd=tree, check=True,
                         capture_output=True, text=True).stdout
    prof = [line.split("\t") for line in out.splitlines() if line.startswith("PROF\t")]
    total = next((float(line.split("\t")[1]) for line in out.splitlines()
                  if line.startswith("PROFTOTAL")), 0.0)
    print(f"\nfirst run under cProfile ({total:.1f} ms, profiler overhead included); project "
          "functions by own time (ms):")
    own = [(float(tt), int(nc), where) for _, _, tt, nc, where in prof
           if any(p in where for p in ("'phi'", "'fluid_compat'", "'argmap'", "'opmakers'",
                                       "phi/", "fluid_compat/", "argmap/", "opmakers/"))]
    for tt, nc, where in sorted(own, reverse=True)[:top]:
        print(f"  {where[:70]:70s} {tt:7.1f}  ({nc} calls)")
    print("largest by time including callees (ms):")
    for _, ct, _tt, _nc, where in prof[1:top + 1]:
        print(f"  {where[:70]:70s} {float(ct):7.1f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7, help="fresh processes per measurement")
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL,
                    help="a model directory holding inference.pdmodel and input_<feed>.npy")
    ap.add_argument("--compare", type=Path, action="append", default=[], metavar="TREE",
                    help="another source tree to time alongside (round-robin)")
    ap.add_argument("--no-pyc", action="store_true",
                    help="no bytecode cache: every process compiles every module")
    ap.add_argument("--onnx", type=Path, metavar="MODEL.onnx",
                    help="time onnxruntime on this ONNX export of the model alongside")
    ap.add_argument("--onnx-python", type=Path,
                    default=ROOT / ".venv-paddle" / "bin" / "python",
                    help="a python that has onnxruntime")
    ap.add_argument("--top", type=int, default=12, help="rows per breakdown table")
    ap.add_argument("--no-breakdown", action="store_true")
    args = ap.parse_args(argv)
    model = args.model.resolve()
    trees = [ROOT, *(t.resolve() for t in args.compare)]
    py = sys.executable
    run_cmd = [py, "-m", "fluid_compat.cli", *_run_args(model)]
    with tempfile.TemporaryDirectory(prefix="cold-start-pyc-") as tmp:
        envs = {}
        for i, tree in enumerate(trees):
            envs[tree] = _env(tree, None if args.no_pyc else Path(tmp) / str(i))
            _time_first_line(run_cmd, envs[tree], tree)  # warm-up: writes the bytecode cache
        results: dict[Path, dict[str, list[float]]] = {
            t: {"first": [], "exit": [], "import": [], "numpy": []} for t in trees}
        onnx_cmd = None
        onnx_times: list[float] = []
        if args.onnx is not None:
            # the same onnxruntime process as benchmarks/zoo.py times (_peers.COLD_SCRIPT)
            onnx_cmd = cold_argv(str(args.onnx_python), str(model), str(args.onnx.resolve()))
            _time_first_line(onnx_cmd, dict(os.environ), ROOT)  # warm-up
        for _ in range(args.runs):
            if onnx_cmd is not None:
                onnx_times.append(_time_first_line(onnx_cmd, dict(os.environ), ROOT)[0])
            for tree in trees:  # round-robin: a busy machine slows every tree alike
                env = envs[tree]
                first, done = _time_first_line(run_cmd, env, tree)
                results[tree]["first"].append(first)
                results[tree]["exit"].append(done)
                results[tree]["import"].append(_time_first_line(
                    [py, "-c", "import fluid_compat.cli; print(1, flush=True)"], env, tree)[0])
                results[tree]["numpy"].append(_time_first_line(
                    [py, "-c", "import numpy; print(1, flush=True)"], env, tree)[0])
        print(f"cold start of `fluid-compat run {model.name}` (median of {args.runs} fresh "
              f"processes, {'no bytecode cache' if args.no_pyc else 'bytecode cached'}; "
              "seconds; target: " + ("onnxruntime's first output, measured below)" if onnx_times
                                      else f"{TARGET_S[0]}-{TARGET_S[1]} s, onnxruntime's range "
                                      "as first measured)"))
        print(f"  {'tree':40s} {'first output':>12s} {'exit':>8s} {'import':>8s} "
              f"{'python+numpy':>13s}")
        ort_s = statistics.median(onnx_times) if onnx_times else None
        for tree in trees:
            r = {k: statistics.median(v) for k, v in results[tree].items()}
            if ort_s is not None:
                verdict = (f"{r['first'] / ort_s:.2f}x onnxruntime "
                           f"({'meets' if r['first'] <= ort_s else 'misses'})")
            else:
                verdict = f"{'meets' if r['first'] <= TARGET_S[1] else 'misses'} <= {TARGET_S[1]} s"
            print(f"  {str(tree)[-40:]:40s} {r['first']:12.3f} {r['exit']:8.3f} "
                  f"{r['import']:8.3f} {r['numpy']:13.3f}   {verdict}")
        if ort_s is not None:
            print(f"  {'onnxruntime (' + args.onnx.name + ')':40s} {ort_s:12.3f}")
        if not args.no_breakdown:
            _breakdown(ROOT, envs[ROOT], model, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
