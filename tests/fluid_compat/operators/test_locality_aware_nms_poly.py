"""locality_aware_nms with polygon boxes: the overlap measure (phi.kernels.funcs.poly_overlap) on
hand-worked shapes, and the op on a hand-worked merge.  Paddle's own outputs are the committed
tests/fixtures/single_ops/locality_aware_nms_poly* cases (tools/fixtures/cases/
locality_aware_nms_poly.py), run by test_corpus_cases.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fluid_compat import run_op
from phi.kernels.funcs.poly_overlap import poly_area, poly_intersection_area, poly_iou


def sq(x0, y0, x1, y1, dtype=np.float32):
    return np.array([x0, y0, x1, y0, x1, y1, x0, y1], dtype)


def test_area_is_the_shoelace_of_either_winding_and_zero_for_a_bow_tie():
    assert poly_area(sq(0, 0, 4, 3)) == 12
    assert poly_area(sq(0, 0, 4, 3)[[6, 7, 4, 5, 2, 3, 0, 1]]) == 12  # clockwise
    assert poly_area(np.array([0, 0, 4, 4, 4, 0, 0, 4], np.float32)) == 0  # lobes cancel
    assert poly_area(sq(0, 0, 4, 3)).dtype == np.float32


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_iou_of_partial_nested_touching_and_disjoint_squares(dtype):
    a = sq(0, 0, 4, 4, dtype)
    assert poly_iou(a, sq(2, 0, 6, 4, dtype)) == dtype(8) / dtype(24)
    assert poly_iou(a, sq(1, 1, 3, 3, dtype)) == dtype(0.25)
    assert poly_iou(a, sq(4, 0, 8, 4, dtype)) == 0  # a shared edge has no area
    assert poly_iou(a, sq(4, 4, 6, 6, dtype)) == 0  # a shared corner
    assert poly_iou(a, sq(9, 9, 10, 10, dtype)) == 0
    assert poly_iou(a, a) == 1
    assert poly_iou(a, sq(2, 0, 6, 4, dtype)).dtype == dtype


def test_a_square_and_itself_turned_45_degrees_meet_in_an_octagon():
    r = math.sqrt(2)
    diamond = np.array([0, -r, r, 0, 0, r, -r, 0], np.float64)
    inter = poly_intersection_area(sq(-1, -1, 1, 1, np.float64), diamond)
    assert inter == pytest.approx(8 * (math.sqrt(2) - 1), rel=1e-12)


def test_non_convex_l_shape_and_a_square():
    ell = np.array([0, 0, 4, 0, 4, 1, 1, 1, 1, 4, 0, 4], np.float64)  # area 7
    box = sq(0.5, 0.5, 3, 3, np.float64)  # area 6.25
    # [0.5, 3] x [0.5, 1] plus [0.5, 1] x [1, 3]
    assert poly_intersection_area(ell, box) == pytest.approx(2.25, rel=1e-12)
    assert poly_iou(ell, box) == pytest.approx(2.25 / 11, rel=1e-12)


def test_a_self_crossing_polygon_clips_by_the_even_odd_rule():
    # two triangles of area 4 meeting at (2, 2); x in [0, 1] of the left one: int of 4 - 2x
    bow_tie = np.array([0, 0, 4, 4, 4, 0, 0, 4], np.float64)
    assert poly_intersection_area(bow_tie, sq(0, 0, 4, 4, np.float64)) == pytest.approx(8)
    assert poly_intersection_area(bow_tie, sq(0, 0, 1, 4, np.float64)) == pytest.approx(3)


def _run(boxes, scores, **attrs):
    base = {"background_label": -1, "score_threshold": 0.0, "nms_top_k": -1,
            "nms_threshold": 0.3, "nms_eta": 1.0, "keep_top_k": -1, "normalized": True}
    out = run_op("locality_aware_nms", {"BBoxes": [boxes], "Scores": [scores]},
                 {**base, **attrs})
    return out["Out"][0]


def test_consecutive_overlapping_quads_merge_by_score():
    boxes = np.stack([sq(0, 0, 4, 4), sq(1, 0, 5, 4), sq(10, 10, 12, 12)])[None]
    scores = np.array([[[0.25, 0.75, 0.5]]], np.float32)
    out = np.asarray(_run(boxes, scores))
    # IoU 12 / 20 > 0.3: the second folds into the first, weights 0.75 and 0.25
    want_merged = np.array([0, 1.0, 0.75, 0, 4.75, 0, 4.75, 4, 0.75, 4], np.float32)
    assert out.shape == (2, 10)
    np.testing.assert_allclose(out[0], want_merged, rtol=1e-6)
    np.testing.assert_array_equal(out[1], [0, 0.5, 10, 10, 12, 10, 12, 12, 10, 12])


def test_polygons_with_32_coordinates_run_and_keep_their_width():
    t = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    ring = np.stack([np.cos(t), np.sin(t)], 1).reshape(-1).astype(np.float32)
    boxes = np.stack([ring * 3, ring * 3 + 20])[None]
    out = np.asarray(_run(boxes, np.array([[[0.9, 0.8]]], np.float32)))
    assert out.shape == (2, 34)
    np.testing.assert_array_equal(out[:, 2:], boxes[0])
