"""Planned re-run time of the 200-op chain fixtures, best of 7 x 30 runs (ms per run).

    python benchmarks/chains.py                       # this checkout
    PYTHONPATH=/path/to/other/checkout python benchmarks/chains.py   # A/B against another

Run both in one session on a busy machine and compare the figures printed together; the
chains are pure dispatch (tiny tensors), so a change of the per-op overhead shows directly.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from fluid_compat import Executor, load_inference_model
from fluid_compat.framework.scope import Scope

MODELS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "models"


def best_ms(model: str) -> float:
    scope = Scope()
    program, feeds, fetches = load_inference_model(MODELS / model / "inference", scope=scope)
    x = np.load(MODELS / model / f"input_{feeds[0]}.npy")
    exe = Executor()
    for _ in range(3):
        exe.run(program, feed={feeds[0]: x}, fetch_list=fetches, scope=scope)
    best = float("inf")
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(30):
            exe.run(program, feed={feeds[0]: x}, fetch_list=fetches, scope=scope)
        best = min(best, (time.perf_counter() - start) / 30 * 1e3)
    return best


if __name__ == "__main__":
    for name in ("chain200_scale", "chain200_add", "chain200_relu"):
        print(f"{name:16s} {best_ms(name):.3f} ms  ({best_ms(name) / 201 * 1e3:.2f} us/op)")
