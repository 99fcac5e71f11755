"""greedy_nms's two paths (phi.kernels.nms): the compiled loop (numba) and the vectorised numpy
rows keep the same boxes, in the same order, on random boxes with degenerate (inverted, empty,
touching) ones, duplicates and ties, in both dtypes, normalized and in pixels, with and without
an adaptive eta.  Paddle's own decisions are checked by the Paddle-made cases
(tools/fixtures/cases/nms.py, nms_scale.py); this holds the paths to one another."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from phi.kernels.funcs import detection as nms


def _boxes(rng, n: int, dtype) -> np.ndarray:
    xy = rng.uniform(0, 1, (n, 2))
    wh = rng.choice([0.0, 0.05, 0.2, 0.4], (n, 2)) * rng.uniform(0.5, 1.5, (n, 2))
    b = np.concatenate([xy, xy + wh], 1)
    b[rng.random(n) < 0.05] = b[0]  # duplicates
    bad = rng.random(n) < 0.05
    b[bad] = b[bad][:, [2, 3, 0, 1]]  # inverted boxes (area 0 in Paddle's BBoxArea)
    if rng.random() < 0.5:
        b = np.round(b * 20) / 20  # on a grid: touching edges, exact IoUs
    return b.astype(dtype)


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("normalized", [True, False])
def test_the_compiled_and_numpy_paths_keep_the_same_boxes(monkeypatch, dtype, normalized):
    if nms._compiled_greedy() is None:
        pytest.skip("FLAGS_kernel_numba is off")
    rng = np.random.default_rng(7)
    for trial in range(60):
        n = int(rng.integers(33, 300))
        boxes = _boxes(rng, n, dtype) * (1 if normalized else 100)
        threshold = rng.choice([0.0, 0.3, 0.5, 0.7, 1.0, -0.1])
        eta = rng.choice([1.0, 0.9, 0.6])
        monkeypatch.setattr(nms, "_COMPILED_MIN", 0)
        fast = nms.greedy_nms(boxes, threshold, eta, normalized)
        monkeypatch.setattr(nms, "_COMPILED_MIN", 10**9)
        slow = nms.greedy_nms(boxes, threshold, eta, normalized)
        assert fast == slow, (trial, n, threshold, eta)


def test_an_iou_of_nan_suppresses_and_a_negative_threshold_suppresses_every_later_box():
    empty = np.zeros((3, 4), np.float32)  # touching empty boxes: IoU 0 / 0
    with np.errstate(invalid="ignore"):
        assert nms.greedy_nms(empty, 0.5, 1.0, True) == [0]
    apart = np.array([[0, 0, 1, 1], [5, 5, 6, 6]], np.float32)  # IoU 0 > -0.1
    assert nms.greedy_nms(apart, -0.1, 1.0, True) == [0]
    assert nms.greedy_nms(apart, 0.0, 1.0, True) == [0, 1]  # 0 <= 0 keeps
