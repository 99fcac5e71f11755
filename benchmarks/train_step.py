"""One training step (forward + backward + optimizer) of the Paddle-made training fixtures:
the bridge against Paddle 2.6.2's static Executor, in one run.

    python benchmarks/train_step.py [--models resnet_adam ...] [--steps 20] [--rounds 3]
                                    [--paddle-python .venv-paddle/bin/python]

Each model's main program starts from Paddle's initial state (tests/fixtures/train/<m>/init.npz)
and runs the fixture's feeds in a loop.  Per round: the bridge runs ``--steps`` steps in this
process, then (with ``--paddle-python``, an interpreter that has paddlepaddle 2.6.2; Paddle is
never a dependency of the project) Paddle runs the same number in a worker process; the first
step of each side is a warm-up and is not timed.  Printed: the median milliseconds per step of
each side over the rounds and their ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
TRAIN = REPO / "tests" / "fixtures" / "train"

PADDLE_WORKER = r"""
import json, os, sys, time
os.environ.setdefault("FLAGS_enable_pir_api", "0")
os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np, paddle
paddle.enable_static()
base, steps = sys.argv[1], int(sys.argv[2])
meta = json.load(open(os.path.join(base, "meta.json")))
with open(os.path.join(base, "main.pdmodel"), "rb") as f:
    prog = paddle.static.Program.parse_from_string(f.read())
scope = paddle.static.Scope()
exe = paddle.static.Executor(paddle.CPUPlace())
init = np.load(os.path.join(base, "init.npz"))
feeds = np.load(os.path.join(base, "feeds.npz"))
feeds = [{n: feeds[f"step{i}.{n}"] for n in meta["feeds"]} for i in range(meta["steps"])]
with paddle.static.scope_guard(scope):
    for k in init.files:
        scope.var(k).get_tensor().set(init[k], paddle.CPUPlace())
    exe.run(prog, feed=feeds[0], fetch_list=[meta["loss"]])
    t = time.perf_counter()
    for i in range(steps):
        exe.run(prog, feed=feeds[i % len(feeds)], fetch_list=[meta["loss"]])
    print(json.dumps({"ms": (time.perf_counter() - t) * 1000 / steps}))
"""


def bridge_ms(model: str, steps: int) -> float:
    from fluid_compat import Executor, Program
    from fluid_compat.framework.program_desc import ProgramDesc
    from fluid_compat.framework.scope import Scope
    from phi.core.tensor import DenseTensor

    base = TRAIN / model
    meta = json.loads((base / "meta.json").read_text())
    program = Program(ProgramDesc.load(base / "main.pdmodel"))
    scope = Scope()
    with np.load(base / "init.npz") as z:
        for k in z.files:
            scope.var(k).value = DenseTensor.from_numpy(z[k])
    with np.load(base / "feeds.npz") as z:
        feeds = [{n: z[f"step{i}.{n}"] for n in meta["feeds"]} for i in range(meta["steps"])]
    exe = Executor()
    exe.run(program, feed=feeds[0], fetch_list=[meta["loss"]], scope=scope)
    t = time.perf_counter()
    for i in range(steps):
        exe.run(program, feed=feeds[i % len(feeds)], fetch_list=[meta["loss"]], scope=scope)
    return (time.perf_counter() - t) * 1000 / steps


def paddle_ms(python: str, model: str, steps: int) -> float:
    out = subprocess.run([python, "-c", PADDLE_WORKER, str(TRAIN / model), str(steps)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["ms"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="*", default=["resnet_adam"])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--paddle-python", help="an interpreter with paddlepaddle 2.6.2")
    args = ap.parse_args(argv)
    print(f"{'model':24s} {'bridge ms/step':>15s} {'paddle ms/step':>15s} {'ratio':>7s}")
    for model in args.models:
        ours, theirs = [], []
        for _ in range(args.rounds):
            ours.append(bridge_ms(model, args.steps))
            if args.paddle_python:
                theirs.append(paddle_ms(args.paddle_python, model, args.steps))
        b = statistics.median(ours)
        p = statistics.median(theirs) if theirs else float("nan")
        print(f"{model:24s} {b:15.2f} {p:15.2f} {b / p:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
