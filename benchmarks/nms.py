"""NMS at PicoDet's post-processing size, before and after vectorising (issue 29, item 1).

    python benchmarks/nms.py [--images 2] [--boxes 2125] [--classes 10] [--repeat 3]
           [--compare TREE]

multiclass_nms3 on [N, M, 4] boxes and [N, C, M] scores as PaddleDetection's PicoDet export
writes it (score_threshold 0.005, nms_top_k 500, keep_top_k 50, nms_threshold 0.6): random
boxes clustered around a few hundred centres, so that suppression has work to do.  Prints the
best wall time of ``--repeat`` runs; ``--compare TREE`` also times the kernel of another checkout
(e.g. a `git worktree` of the commit before) in the same process and prints the ratio and
whether both kept the same rows.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np


def _inputs(images: int, boxes: int, classes: int, seed: int = 0):
    r = np.random.RandomState(seed)
    centres = r.uniform(0, 300, (images, boxes // 8 + 1, 2))
    pick = r.randint(0, centres.shape[1], (images, boxes))
    c = np.take_along_axis(centres, pick[..., None].repeat(2, -1), 1) + r.normal(0, 6, (
        images, boxes, 2))
    wh = r.uniform(10, 60, (images, boxes, 2))
    b = np.concatenate([c - wh / 2, c + wh / 2], -1).astype(np.float32)
    s = (r.beta(0.3, 3.0, (images, classes, boxes))).astype(np.float32)
    return b, s


def _load(tree: Path):
    """The other tree's nms module, its kernels left unregistered (the names are taken)."""
    from phi.core import registry

    spec = importlib.util.spec_from_file_location("_nms_other", tree / "phi" / "kernels" /
                                                  "nms.py")
    mod = importlib.util.module_from_spec(spec)
    real = registry.register_kernel
    registry.register_kernel = lambda *a, **k: (lambda fn: fn)
    try:
        spec.loader.exec_module(mod)
    finally:
        registry.register_kernel = real
    return mod


def _time(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--images", type=int, default=2)
    ap.add_argument("--boxes", type=int, default=2125)
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--eta", type=float, default=1.0)
    ap.add_argument("--compare", type=Path, help="another checkout whose kernel to time too")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from phi.kernels import multiclass_nms3 as nms

    b, s = _inputs(args.images, args.boxes, args.classes)
    attrs = nms._attrs(-1, 0.005, 500, 0.6, args.eta, 50, False)
    run = lambda mod: mod.multiclass_nms_batch(b, s, None, attrs)  # noqa: E731
    t_new, out_new = _time(lambda: run(nms), args.repeat)
    print(f"multiclass_nms3 {args.images}x{args.boxes} boxes, {args.classes} classes, "
          f"eta {args.eta}: {t_new * 1e3:.1f} ms ({out_new[0].shape[0]} rows kept)")
    if args.compare:
        other = _load(args.compare)
        t_old, out_old = _time(lambda: run(other), 1)
        same = all(np.array_equal(x, y) for x, y in zip(out_new[:2], out_old[:2], strict=True))
        print(f"  {args.compare}: {t_old * 1e3:.1f} ms -> ratio {t_old / t_new:.0f}x; "
              f"same rows and indices: {same}")


if __name__ == "__main__":
    main()
