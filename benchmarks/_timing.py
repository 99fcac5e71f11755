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


def paired_difference_us(fn, base, number: int, repeat: int) -> tuple[float, float, float]:
    """(median us per call of fn, of base, median of fn - base over the rounds): each round
    times fn and base back to back, so that a machine switching speed between rounds (shared
    cores) moves both sides of a difference alike."""
    fn()
    base()
    a, b, d = [], [], []
    for r in range(repeat):
        pair = (fn, base) if r % 2 == 0 else (base, fn)  # the order turns each round
        t = {f: timeit.timeit(f, number=number) / number * 1e6 for f in pair}
        a.append(t[fn])
        b.append(t[base])
        d.append(t[fn] - t[base])
    return statistics.median(a), statistics.median(b), statistics.median(d)

