"""A detection program built with Paddle 2.6.2's static API (tests/fixtures/models/yolo_nms_tiny,
made by tools/fixtures/gen_detection_models.py): conv backbone -> yolo_box -> multiclass_nms3,
saved with save_inference_model, runs unchanged and matches Paddle's outputs and kernel choices
(the checks of test_model_fixtures.py), including the feed where NMS keeps nothing."""

from __future__ import annotations

import numpy as np
import pytest

from tests.fluid_compat import test_model_fixtures as fixtures

MODEL = "yolo_nms_tiny"


def test_detection_fixture_is_small():
    size = sum(f.stat().st_size for f in (fixtures.FIXTURES / MODEL).iterdir())
    assert size < 400 * 1024


def test_detection_program_matches_paddle():
    fixtures.test_model_matches_paddle(MODEL)


def test_detection_program_op_by_op_kernel_choices_match_paddle():
    fixtures.test_model_op_by_op_kernel_choices_match_paddle(MODEL)


def test_nothing_kept_gives_empty_rows_and_zero_counts():
    from fluid_compat import Executor, load_inference_model
    from fluid_compat.framework.scope import Scope

    scope = Scope()
    program, _, fetches = load_inference_model(fixtures.FIXTURES / MODEL / "inference",
                                               scope=scope)
    feed, wanted = fixtures._runs(MODEL)[1]
    assert wanted[2].tolist() == [0]  # the fixture does exercise "nothing kept"
    rows, index, counts = Executor().run(program, feed=feed, fetch_list=fetches, scope=scope)
    assert rows.shape == (0, 6) and rows.dtype == np.float32
    assert index.shape == (0, 1) and index.dtype == np.int32
    assert counts.tolist() == [0] and counts.dtype == np.int32


@pytest.mark.parametrize("run", [0, 1])
def test_fluid_compat_run_feeds_match(run, tmp_path):
    from fluid_compat import Executor, load_inference_model
    from fluid_compat.framework.scope import Scope

    scope = Scope()
    program, _, fetches = load_inference_model(fixtures.FIXTURES / MODEL / "inference",
                                               scope=scope)
    feed, wanted = fixtures._runs(MODEL)[run]
    outs = Executor().run(program, feed=feed, fetch_list=fetches, scope=scope)
    for got, ref in zip(outs, wanted, strict=True):
        assert got.dtype == ref.dtype and got.shape == ref.shape
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
