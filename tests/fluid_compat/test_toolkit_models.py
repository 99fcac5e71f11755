"""Models built from Paddle's toolkits' own modeling code (tests/fixtures/models, made by
tools/fixtures/gen_toolkit_zoo.py with random weights, exported by paddle.jit.save as the
toolkits' export scripts do, outputs recorded by Paddle 2.6.2's Executor): PaddleDetection's
PicoDet (PicoHeadV2 with its in-graph decode and multiclass_nms3) and PaddleOCR's SLANet table
recogniser (its SLAHead decode loop: while, one_hot_v2, set_value), both narrowed to commit.
The full-size models of the same generator stay outside the repository (benchmarks/
toolkits.py times them)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import Executor, load_inference_model
from fluid_compat.framework.scope import Scope

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "models"
# model -> the ops it is committed for (none of the other committed models has them all)
MODELS = {
    "picodet_tiny_64": {"multiclass_nms3", "meshgrid", "sqrt", "nearest_interp_v2"},
    "ocr_slanet_tiny": {"while", "one_hot_v2", "set_value", "nearest_interp_v2"},
}


def _meta(model: str) -> dict:
    return json.loads((FIXTURES / model / "meta.json").read_text())


def _run(model: str):
    d = FIXTURES / model
    meta = _meta(model)
    scope = Scope()
    program, _, fetches = load_inference_model(d / "inference", scope=scope)
    feed = {f["name"]: np.load(d / f["file"]) for f in meta["feeds"]}
    outs = Executor().run(program, feed=feed, fetch_list=fetches, scope=scope)
    wanted = [np.load(d / f["file"]) for f in meta["fetches"]]
    return outs, wanted, meta


@pytest.mark.parametrize("model", sorted(MODELS))
def test_fixture_holds_the_ops_it_is_for(model):
    d = FIXTURES / model
    assert sum(f.stat().st_size for f in d.iterdir()) < 500 * 1024
    assert MODELS[model] <= set(_meta(model)["op_type_counts"])


@pytest.mark.parametrize("model", sorted(MODELS))
def test_toolkit_model_matches_paddle(model):
    outs, wanted, _ = _run(model)
    assert len(outs) == len(wanted)
    for got, ref in zip(outs, wanted, strict=True):
        got = np.asarray(got)
        assert got.shape == ref.shape and got.dtype == ref.dtype, model
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4, err_msg=model)


def test_picodet_keeps_paddles_detections_in_paddles_order():
    """multiclass_nms3 over PicoDet's decoded boxes: Paddle keeps keep_top_k (100) of them
    and writes the [label, score, x1, y1, x2, y2] rows grouped by label in ascending order,
    by descending score inside a label; one image's count in NmsRoisNum."""
    outs, wanted, _ = _run("picodet_tiny_64")
    boxes, num = np.asarray(outs[0]), np.asarray(outs[1])
    assert num.tolist() == wanted[1].tolist() == [100]
    np.testing.assert_array_equal(boxes[:, 0], wanted[0][:, 0])  # labels, row by row
    assert np.all(np.diff(boxes[:, 0]) >= 0)
    for label in np.unique(boxes[:, 0]):
        assert np.all(np.diff(boxes[boxes[:, 0] == label, 1]) <= 0)
