"""NMS at PicoDet's post-processing size, before and after vectorising.

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


ROOT = Path(__file__).resolve().parents[1]


def _kernel_module():
    """The module that defines the multiclass_nms3 kernel (as the kernel registry knows it)."""
    from phi.core.registry import kernel_factory

    fn = next(iter(kernel_factory().kernels_of("multiclass_nms3").values())).fn
    return importlib.import_module(fn.__module__)


def _load(tree: Path, module):
    """``module`` of the other tree (the same file there), its kernels left unregistered (the
    names are taken)."""
    from phi.core import registry

    spec = importlib.util.spec_from_file_location(
        "_nms_other", tree / Path(module.__file__).resolve().relative_to(ROOT))
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
    sys.path.insert(0, str(ROOT))
    nms = _kernel_module()

    b, s = _inputs(args.images, args.boxes, args.classes)
    # (background_label, score_threshold, nms_top_k, nms_threshold, nms_eta, keep_top_k,
    # normalized), the thresholds rounded to float32 as the op's attributes are
    f32 = lambda v: float(np.float32(v))  # noqa: E731
    attrs = (-1, f32(0.005), 500, f32(0.6), f32(args.eta), 50, False)
    run = lambda mod: mod.multiclass_nms_batch(b, s, None, attrs)  # noqa: E731
    t_new, out_new = _time(lambda: run(nms), args.repeat)
    print(f"multiclass_nms3 {args.images}x{args.boxes} boxes, {args.classes} classes, "
          f"eta {args.eta}: {t_new * 1e3:.1f} ms ({out_new[0].shape[0]} rows kept)")
    if args.compare:
        other = _load(args.compare, nms)
        t_old, out_old = _time(lambda: run(other), 1)
        same = all(np.array_equal(x, y) for x, y in zip(out_new[:2], out_old[:2], strict=True))
        print(f"  {args.compare}: {t_old * 1e3:.1f} ms -> ratio {t_old / t_new:.0f}x; "
              f"same rows and indices: {same}")


if __name__ == "__main__":
    main()
