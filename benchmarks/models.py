"""Latency, peak memory and dispatch overhead of whole programs, measured in one run.

    python benchmarks/models.py [--repeat 30] [--big DIR]

Per model (each in its own subprocess, so that peak resident memory is the model's own):
median latency of a planned re-run, peak RSS, and the time spent outside kernels per op on a
planned re-run (the run's time minus the same kernels called back to back).  "median ms" is
the default run, with conv -> batch_norm [-> activation] chains fused (fluid_compat.operators.
fusion) and stretches of planned ops replayed as compiled segments (operators/segments.py);
"unfused ms" the same program op by op (every fusion pass off), timed in alternation;
with ``--plain-kernels``, "plain ms" the default run with the kernels' own fast paths off
(``phi.kernels.conv.FAST_PATH_FLAGS``: numba loops, Winograd, scratch buffers, 1x1 GEMM; issue
14), timed in the same alternation, and "plain err" the largest difference of its outputs from
the default run's, relative to their largest magnitude;
"fused" counts the ops inside fused steps and segments.  Dispatch overhead is measured op by op.
Models: the bundled jit_convnet, the corpus models when ../shared/corpus is present, the
Paddle-saved fixtures under tests/fixtures/models (the 200-op chains chain200_* also against the
same math in bare numpy), and ResNet-18 / MobileNetV2 at 224x224 when ``--big DIR`` holds them
(tools/fixtures/gen_big_models.py makes them).
Targets: at most 2 us of dispatch overhead per op on a planned re-run; ResNet-18 under 50 ms and
MobileNetV2 under 30 ms.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from _timing import medians_us

ROOT = Path(__file__).resolve().parents[1]


def _models(big: Path | None) -> list[Path]:
    from fluid_compat.examples import example_prefix

    found = [example_prefix().parent]
    corpus = ROOT.parent / "shared" / "corpus" / "models"
    if corpus.is_dir():
        found += sorted(p for p in corpus.iterdir() if (p / "inference.pdmodel").is_file())
    fixtures = ROOT / "tests" / "fixtures" / "models"
    if fixtures.is_dir():
        found += sorted(p for p in fixtures.iterdir() if (p / "inference.pdmodel").is_file())
    if big is not None and big.is_dir():
        found += sorted(p for p in big.iterdir() if (p / "inference.pdmodel").is_file())
    return found


def _feed(model_dir: Path, program, feed_names):
    from fluid_compat.tools.run import random_feed

    feed = {}
    for name in feed_names:
        f = model_dir / f"input_{name.replace('/', '_')}.npy"
        if f.is_file():
            feed[name] = np.load(f)
    missing = [n for n in feed_names if n not in feed]
    feed.update(random_feed(program, missing, 0))
    return feed


def _kernel_calls(plan):
    """The kernels of a planned run, with their arguments, to call back to back."""
    calls = []
    for runner in plan.runners:
        if runner.simple_inputs is not None:
            args = [var.value.data for var, *_ in runner.simple_inputs]
        elif runner.armed:
            args = []
            for _kind, var, _guard in runner.replay_inputs:
                if isinstance(var, list):
                    args.append([v.value.data for v in var])
                else:
                    args.append(None if var is None or var.value is None else var.value.data)
        else:
            return None  # an op off the fast path: no clean split
        calls.append((runner.kernel_fn, runner.kernel_ctx,
                      tuple(args) + tuple(runner.kernel_attrs)))
    return calls


def load_model(model_dir: Path) -> SimpleNamespace:
    """The model loaded into its own scope with its recorded (or seeded random) feeds, and one
    Executor: .run() runs it once; .exe, .program, .feed, .fetches, .scope."""
    from fluid_compat import Executor, load_inference_model
    from fluid_compat.framework.scope import Scope

    scope = Scope()
    program, feeds, fetches = load_inference_model(model_dir / "inference", scope=scope)
    feed = _feed(model_dir, program, feeds)
    exe = Executor()

    def run():
        return exe.run(program, feed=feed, fetch_list=fetches, scope=scope)

    return SimpleNamespace(run=run, exe=exe, program=program, feed=feed, fetches=fetches,
                           scope=scope)


def measure_one(model_dir: Path, repeat: int, plain: bool = False) -> dict:
    from fluid_compat.operators.fusion import fusion_flags
    from phi.flags import get_flags, set_flags
    from phi.kernels.conv import FAST_PATH_FLAGS

    model = load_model(model_dir)
    run, exe, feed, scope = model.run, model.exe, model.feed, model.scope

    def with_off(names):
        """run() with these switches off (restored after)."""
        saved = get_flags(list(names))

        def run_off():
            set_flags({flag: False for flag in saved})
            try:
                return run()
            finally:
                set_flags(saved)

        return run_off

    run_unfused = with_off(fusion_flags())  # every fusion pass off (segments too): op by op
    run_plain = with_off(FAST_PATH_FLAGS)  # the kernels' fast paths off

    run()
    plan = exe.last_plan
    n_ops = len(plan.runners)
    # planned re-runs, fused (the default) and op by op, timed in alternation
    fns = [run, run_unfused, run_plain] if plain else [run, run_unfused]
    fused_ms, unfused_ms, *plain_ms = (t / 1e3 for t in medians_us(fns, 1, repeat))
    plain_err = None
    if plain:
        plain_err = max((float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b)),
                                      initial=0) / max(float(np.max(np.abs(b), initial=0)),
                                                       1e-30))
                         for a, b in zip(run(), run_plain(), strict=True)
                         if np.asarray(b).dtype.kind == "f"), default=None)
    run()
    fused = sum(count for _, _, count in plan.steps if count > 1)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before the kernels-only
    # dispatch overhead: op-by-op runs against the same kernels called back to back, timed in
    # alternation; the intermediates are kept alive for this (releasing them is part of the
    # real run)
    saved_release = [list(group) for group in plan.release]
    for group in plan.release:
        group.clear()
    run_unfused()
    calls = _kernel_calls(plan)
    outside = None
    if calls is not None:
        def kernels_only():
            for fn, ctx, args in calls:
                fn(ctx, *args)

        run_us, kernel_us = medians_us([run_unfused, kernels_only], 1, repeat)
        outside = (run_us - kernel_us) / n_ops
    for group, saved in zip(plan.release, saved_release, strict=True):
        group.extend(saved)
    result = {
        "model": model_dir.name,
        "ops": n_ops,
        "fused_ops": fused,
        "median_ms": fused_ms,
        "unfused_ms": unfused_ms,
        "peak_rss_mb": peak_mb,
        "outside_kernels_us_per_op": outside,
        "plain_ms": plain_ms[0] if plain_ms else None,
        "plain_err": plain_err,
    }
    if model_dir.name.startswith("chain200_"):
        result["bare_numpy_ms"] = _bare_chain(model_dir, feed, scope, repeat)
    return result


def _bare_chain(model_dir: Path, feed: dict, scope, repeat: int) -> float | None:
    """The chain's math in bare numpy (chain200_* fixtures: see tests/fixtures/README)."""
    bare = bare_chain_fn(model_dir, feed, scope)
    if bare is None:
        return None
    return medians_us([bare], 1, repeat)[0] / 1e3


def bare_chain_fn(model_dir: Path, feed: dict, scope):
    """A function doing a chain200_* fixture's math in bare numpy (None: not such a chain)."""
    meta_file = model_dir / "meta.json"
    if not meta_file.is_file():
        return None
    meta = json.loads(meta_file.read_text())
    kinds = [op["type"] for op in meta["ops"] if op["type"] not in ("feed", "fetch")]
    x = next(iter(feed.values()))
    ops = []
    for op in meta["ops"]:
        t = op["type"]
        if t == "scale":
            a = {k: v["value"] for k, v in op["attrs"].items()}
            s, b = np.float32(a.get("scale", 1.0)), np.float32(a.get("bias", 0.0))
            ops.append(lambda h, s=s, b=b: h * s + b)
        elif t == "elementwise_add":
            y_name = op["inputs"]["Y"][0]
            var = scope.find_var(y_name)
            y = var.value.numpy() if var is not None and var.value is not None else x
            ops.append(lambda h, y=y: h + y)
        elif t == "relu":
            ops.append(lambda h: np.maximum(h, 0))
    if len(ops) != len(kinds):
        return None

    def bare():
        h = x
        for f in ops:
            h = f(h)
        return h

    return bare


def _err_text(err: float | None) -> str:
    """A plain-path error for the table ('-': the model has no float output to compare)."""
    return "-" if err is None else f"{err:.1e}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--big", type=Path, default=None)
    parser.add_argument("--plain-kernels", action="store_true",
                        help="also time the default run with the kernels' fast paths off")
    parser.add_argument("--only", default=None,
                        help="comma-separated model names (directory names) to run")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(measure_one(args.one, args.repeat, args.plain_kernels)))
        return
    rows = []
    only = set(args.only.split(",")) if args.only else None
    for model in _models(args.big):
        if only is not None and model.name not in only:
            continue
        extra = ["--plain-kernels"] if args.plain_kernels else []
        out = subprocess.run([sys.executable, __file__, "--one", str(model), "--repeat",
                              str(args.repeat), *extra], capture_output=True, text=True)
        if out.returncode != 0:
            print(f"{model.name}: failed: {out.stderr.strip().splitlines()[-1:]}")
            continue
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"{'model':<20}{'ops':>5}{'fused':>6}{'median ms':>11}{'unfused ms':>12}"
          f"{'peak RSS MB':>13}{'outside us/op':>15}{'numpy ms':>10}"
          + (f"{'plain ms':>10}{'plain err':>11}" if args.plain_kernels else ""))
    for r in rows:
        outside = r["outside_kernels_us_per_op"]
        bare = r.get("bare_numpy_ms")
        print(f"{r['model']:<20}{r['ops']:>5}{r['fused_ops']:>6}{r['median_ms']:>11.3f}"
              f"{r['unfused_ms']:>12.3f}{r['peak_rss_mb']:>13.1f}"
              f"{(f'{outside:.2f}' if outside is not None else '-'):>15}"
              f"{(f'{bare:.3f}' if bare else '-'):>10}"
              + (f"{r['plain_ms']:>10.3f}{_err_text(r['plain_err']):>11}"
                 if args.plain_kernels and r.get("plain_ms") is not None else ""))
    chains = [r for r in rows if r["model"].startswith("chain200_") and
              r["outside_kernels_us_per_op"] is not None]
    if chains:
        worst = max(r["outside_kernels_us_per_op"] for r in chains)
        print(f"max dispatch overhead on the 200-op chains: {worst:.2f} us per op "
              "(target <= 2 us)")


if __name__ == "__main__":
    main()
