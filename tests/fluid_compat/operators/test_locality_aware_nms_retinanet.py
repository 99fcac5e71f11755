"""locality_aware_nms / retinanet_detection_output: hand-worked merges and typed errors."""

from __future__ import annotations

import numpy as np
import pytest
from phi.core.errors import InvalidArgument

from fluid_compat import run_op

_ATTRS = {"background_label": -1, "score_threshold": 0.0, "nms_top_k": -1,
          "nms_threshold": 0.3, "nms_eta": 1.0, "keep_top_k": -1, "normalized": True}


def test_locality_aware_nms_merges_consecutive_boxes_weighted_by_score():
    # IoU([0,0,2,2], [1,0,3,2]) = 2 / 6 > 0.3: merged, x = (1*1 + 0*3) / 4 = 0.25, score 4
    b = np.array([[[0, 0, 2, 2], [1, 0, 3, 2]]], np.float32)
    s = np.array([[[3.0, 1.0]]], np.float32)
    out = run_op("locality_aware_nms", {"BBoxes": b, "Scores": s}, _ATTRS)["Out"][0]
    np.testing.assert_allclose(out, [[0, 4, 0.25, 0, 2.25, 2]])


def test_locality_aware_nms_refuses_bad_shapes():
    # polygons (8 / 16 / 24 / 32 coordinates): test_locality_aware_nms_poly.py
    s = np.ones((1, 1, 2), np.float32)
    with pytest.raises(InvalidArgument, match=r"\[N, M, 4\|8\|16\|24\|32\]"):
        run_op("locality_aware_nms", {"BBoxes": np.zeros((1, 2, 6), np.float32), "Scores": s},
               _ATTRS)
    with pytest.raises(InvalidArgument, match="locality_aware_nms"):
        run_op("locality_aware_nms", {"BBoxes": np.zeros((1, 3, 4), np.float32), "Scores": s},
               _ATTRS)


def test_retinanet_detection_output_decodes_a_zero_delta_to_its_anchor():
    # zero deltas: the anchor itself (pixel convention), label + 1, inside a 100 x 100 image
    feeds = {"BBoxes": [np.zeros((1, 1, 4), np.float32)],
             "Scores": [np.array([[[0.2, 0.9]]], np.float32)],
             "Anchors": [np.array([[10, 20, 29, 39]], np.float32)],
             "ImInfo": np.array([[100, 100, 1]], np.float32)}
    attrs = {"score_threshold": 0.05, "nms_top_k": 10, "nms_threshold": 0.3, "nms_eta": 1.0,
             "keep_top_k": 10}
    out = run_op("retinanet_detection_output", feeds, attrs)["Out"][0]
    np.testing.assert_allclose(out, [[2, 0.9, 10, 20, 29, 39], [1, 0.2, 10, 20, 29, 39]])
