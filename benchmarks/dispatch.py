"""Per-call cost of the phi eager API against the bare numpy expression, measured in one run.

    python benchmarks/dispatch.py [--repeat 15] [--number 2000]

Prints the median microseconds per call of phi.api scale / add / matmul on [4,4] and [256,256]
float32 (inputs already DenseTensors, as inside a model), of the same math in bare numpy, the
overhead (difference) and the ratio.  Target: overhead at most 6 us per call on [4,4].
"""

from __future__ import annotations

import argparse
import numpy as np

import phi
from phi.core.tensor import DenseTensor

from _timing import medians_us  # benchmarks/_timing.py


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--number", type=int, default=2000)
    args = parser.parse_args()
    api = phi.api
    rng = np.random.default_rng(0)
    rows = []
    for n in (4, 256):
        a = rng.standard_normal((n, n)).astype(np.float32)
        b = rng.standard_normal((n, n)).astype(np.float32)
        ta, tb = DenseTensor.from_numpy(a), DenseTensor.from_numpy(b)
        s, bias = np.float32(2.0), np.float32(0.5)
        number = args.number if n == 4 else max(args.number // 20, 20)
        cases = [
            ("scale", lambda: api.scale(ta, 2.0, 0.5, True), lambda: a * s + bias),
            ("add", lambda: api.add(ta, tb), lambda: a + b),
            ("matmul", lambda: api.matmul(ta, tb), lambda: a @ b),
        ]
        for name, phi_fn, np_fn in cases:
            t_phi, t_np = medians_us([phi_fn, np_fn], number, args.repeat)
            rows.append((f"{name} [{n},{n}]", t_phi, t_np))
    print(f"{'op':<20}{'phi.api us':>12}{'numpy us':>12}{'overhead us':>13}{'ratio':>8}")
    for label, t_phi, t_np in rows:
        print(f"{label:<20}{t_phi:>12.2f}{t_np:>12.2f}{t_phi - t_np:>13.2f}{t_phi / t_np:>8.2f}")
    worst = max(t_phi - t_np for label, t_phi, t_np in rows if "[4,4]" in label)
    print(f"max overhead on [4,4]: {worst:.2f} us per call (target <= 6 us)")


if __name__ == "__main__":
    main()
