"""Throughput of batch inference and parity sweeps, in this process against Ray.

    python benchmarks/scaleout.py [--rows 300] [--model tests/fixtures/models/lenet/inference]
                                  [--workers 2]

Batch inference: ``--rows`` row files of random inputs for the model, run by
``fluid_compat.scaleout.run_dataset`` in this process and on a local Ray with ``--workers``
CPUs (actors; Ray is started first and one warm-up pass is not timed, so the figure is the
steady state, not Ray's start-up).  Sweep: ``compare`` over the Paddle-saved model fixtures,
locally and as Ray tasks.  Prints rows/s and items/s of both and the Ray start-up time.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=300)
    ap.add_argument("--model", default=str(ROOT / "tests/fixtures/models/lenet/inference"))
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    from fluid_compat import scaleout

    ray = scaleout.require_ray()
    probe = scaleout.BatchPredictor(args.model)
    block = probe.program.desc.global_block
    shapes = {n: [d if d > 0 else 1 for d in block.var(n).shape] for n in probe.feed_names}
    with tempfile.TemporaryDirectory() as d:
        rng = np.random.default_rng(0)
        for i in range(args.rows):
            np.savez(Path(d) / f"row{i:05d}.npz",
                     **{n: rng.standard_normal(s).astype(np.float32) for n, s in shapes.items()})
        local = scaleout.run_dataset(args.model, d)
        t = time.perf_counter()
        ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False,
                 logging_level="ERROR")
        startup = time.perf_counter() - t
        scaleout.run_dataset(args.model, d, use_ray=True, concurrency=args.workers)  # warm-up
        remote = scaleout.run_dataset(args.model, d, use_ray=True, concurrency=args.workers)
    items = scaleout.sweep_items([str(ROOT / "tests/fixtures/models")])
    sl = scaleout.run_sweep(items)
    scaleout.run_sweep(items[:2], use_ray=True)  # warm workers
    sr = scaleout.run_sweep(items, use_ray=True)
    ray.shutdown()
    print(f"model {args.model}, {args.rows} rows; Ray start-up {startup:.1f} s "
          f"({args.workers} CPUs)")
    print(f"{'':24s} {'local':>12s} {'Ray':>12s}")
    print(f"{'batch inference rows/s':24s} {local['rows_per_s']:12.1f} "
          f"{remote['rows_per_s']:12.1f}")
    print(f"{'sweep items/s':24s} {len(items) / sl.seconds:12.2f} "
          f"{len(items) / sr.seconds:12.2f}   ({len(items)} models)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
