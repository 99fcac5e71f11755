"""Per-op cost of a repeated (cached) RunImpl, next to phi.api and bare numpy, in one run.

    python benchmarks/run_impl.py [--repeat 15] [--number 2000]

For scale, elementwise_add and matmul_v2 on [4,4] and [256,256] float32: the median
microseconds per op of ``op.run(scope, place)`` after the first run (the kernel decision is
cached), of the phi eager API, and of the bare numpy expression; overheads and ratios.
Target: cached RunImpl overhead at most 10 us per op on [4,4].
"""

from __future__ import annotations

import argparse
import numpy as np

import phi
from fluid_compat.framework.op_registry import create_op
from fluid_compat.framework.scope import Scope
from phi.core.tensor import DenseTensor

from _timing import medians_us  # benchmarks/_timing.py


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--number", type=int, default=2000)
    args = parser.parse_args()
    place = phi.CPUPlace()
    rng = np.random.default_rng(0)
    rows = []
    for n in (4, 256):
        a = rng.standard_normal((n, n)).astype(np.float32)
        b = rng.standard_normal((n, n)).astype(np.float32)
        ta, tb = DenseTensor.from_numpy(a), DenseTensor.from_numpy(b)
        scope = Scope()
        scope.var("a").value = ta
        scope.var("b").value = tb
        s, bias = np.float32(2.0), np.float32(0.5)
        ops = {
            "scale": create_op("scale", {"X": ["a"]}, {"Out": ["o1"]},
                               {"scale": 2.0, "bias": 0.5}),
            "elementwise_add": create_op("elementwise_add", {"X": ["a"], "Y": ["b"]},
                                         {"Out": ["o2"]}, {}),
            "matmul_v2": create_op("matmul_v2", {"X": ["a"], "Y": ["b"]}, {"Out": ["o3"]}, {}),
        }
        cases = [
            ("scale", lambda: phi.api.scale(ta, 2.0, 0.5, True), lambda: a * s + bias),
            ("elementwise_add", lambda: phi.api.add(ta, tb), lambda: a + b),
            ("matmul_v2", lambda: phi.api.matmul(ta, tb), lambda: a @ b),
        ]
        number = args.number if n == 4 else max(args.number // 20, 20)
        for name, api_fn, np_fn in cases:
            op = ops[name]
            t_run, t_api, t_np = medians_us(
                [lambda op=op: op.run(scope, place), api_fn, np_fn], number, args.repeat)
            rows.append((f"{name} [{n},{n}]", t_run, t_api, t_np))
    print(f"{'op':<24}{'RunImpl us':>11}{'phi.api us':>11}{'numpy us':>10}"
          f"{'RunImpl ovh':>12}{'ratio':>7}")
    for label, t_run, t_api, t_np in rows:
        print(f"{label:<24}{t_run:>11.2f}{t_api:>11.2f}{t_np:>10.2f}{t_run - t_np:>12.2f}"
              f"{t_run / t_np:>7.2f}")
    worst = max(r[1] - r[3] for r in rows if "[4,4]" in r[0])
    print(f"max cached RunImpl overhead on [4,4]: {worst:.2f} us per op (target <= 10 us)")


if __name__ == "__main__":
    main()
