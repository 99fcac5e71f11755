"""An OCR-style program over LoD tensors made by Paddle 2.6.2's static API
(tests/fixtures/models/crnn_ctc_lod, tools/fixtures/gen_ocr_models.py): conv backbone ->
columns as time steps -> lod_reset -> sequence_conv -> fc -> softmax -> argmax -> lod_reset ->
ctc_align.  It runs unchanged; the decoded ids, the probabilities and the LoD of both match
Paddle's, and the kernel choices match Paddle's trace (test_model_fixtures' checks)."""

from __future__ import annotations

import numpy as np

from fluid_compat import Executor, load_inference_model
from fluid_compat.framework.scope import Scope
from tests.fluid_compat import test_model_fixtures as fixtures

MODEL = "crnn_ctc_lod"


def test_ocr_program_matches_paddle_with_its_lod():
    scope = Scope()
    program, _, fetches = load_inference_model(fixtures.FIXTURES / MODEL / "inference",
                                               scope=scope)
    meta = fixtures._meta(MODEL)
    for (feed, wanted), run in zip(fixtures._runs(MODEL), meta["runs"], strict=True):
        outs = Executor().run(program, feed=feed, fetch_list=fetches, scope=scope,
                              return_numpy=False)
        for got, ref, info in zip(outs, wanted, run["outputs"], strict=True):
            assert got.numpy().dtype == ref.dtype and got.numpy().shape == ref.shape
            np.testing.assert_allclose(got.numpy(), ref, rtol=1e-5, atol=1e-6)
            assert [list(level) for level in got.lod] == info.get("lod", [])


def test_ocr_program_kernel_choices_match_paddle():
    # the planned program's decisions against Paddle's trace (op by op through run_op would
    # drop the LoD the sequence ops need, so the program-level check is the one here)
    fixtures.test_model_matches_paddle(MODEL)


def test_ocr_fixture_is_small():
    size = sum(f.stat().st_size for f in (fixtures.FIXTURES / MODEL).iterdir())
    assert size < 400 * 1024
