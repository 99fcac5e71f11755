"""The kernels' fast paths (numba loops, Winograd, scratch buffers, 1x1 GEMM; see
phi/kernels/conv.py) on every CNN model fixture saved by Paddle: planned runs with the switches
on stay within 1e-5 of the same runs with them off (relative to the output's largest
magnitude), both match Paddle's recorded outputs, and the first run equals the later ones."""

from __future__ import annotations

import numpy as np
import pytest

from phi.flags import get_flags, set_flags
from phi.kernels.conv import FAST_PATH_FLAGS
from tests.corpus_paths import FIXTURES
from tests.fluid_compat.test_executor import _run_model

SWITCHES = FAST_PATH_FLAGS
CNNS = ["resnet_tiny", "mobilenet_v2_small", "mobilenet_v3_small", "shufflenet_v2",
        "densenet_tiny", "inception_tiny", "inception_v3_small", "resnext_tiny",
        "squeezenet_small", "lenet"]


@pytest.fixture(autouse=True)
def _restore_switches():
    saved = get_flags(list(SWITCHES))
    yield
    set_flags(saved)


def _runs(model: str, on: bool):
    set_flags(dict.fromkeys(SWITCHES, on))
    model_dir = FIXTURES / "models" / model
    meta, first, exe, program, feed, scope = _run_model(model_dir)
    fetches = program.fetch_target_names()
    runs = [first] + [exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
                      for _ in range(2)]
    return meta, model_dir, runs


@pytest.mark.parametrize("model", CNNS)
def test_fast_kernels_match_plain_kernels_and_paddle(model):
    meta, model_dir, fast = _runs(model, True)
    _, _, plain = _runs(model, False)
    for i, f in enumerate(meta["fetches"]):
        want = np.load(model_dir / f["file"])
        ref = np.asarray(plain[-1][i])
        for run in fast:
            got = np.asarray(run[i])
            assert got.shape == ref.shape and got.dtype == ref.dtype
            scale = max(float(np.abs(ref).max(initial=0)), 1e-30)
            assert float(np.abs(got - ref).max(initial=0)) <= 1e-5 * scale
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
        # the first run (op by op) and the fused, planned runs agree bit for bit
        np.testing.assert_array_equal(np.asarray(fast[0][i]), np.asarray(fast[-1][i]))
