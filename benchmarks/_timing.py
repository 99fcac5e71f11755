"""Timing shared by the benchmark scripts: medians of functions timed in alternation, so that
a burst of noise on a shared machine hits every side alike."""

from __future__ import annotations

import statistics
import timeit


def medians_us(fns, number: int, repeat: int) -> list[float]:
    """Median microseconds per call of each function (each is called once first, to warm)."""
    for fn in fns:
        fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for t, fn in zip(times, fns, strict=True):
            t.append(timeit.timeit(fn, number=number))
    return [statistics.median(t) / number * 1e6 for t in times]
