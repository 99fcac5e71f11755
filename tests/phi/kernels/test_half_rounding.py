"""float16 / bfloat16 results equal Paddle 2.6.2's CPU kernels bit for bit.

Paddle's CPU converts float -> float16 and float -> bfloat16 by truncation toward zero (float16:
|x| > 65504 -> inf), and every half operation computes in float32 and converts back that way
(phi/kernels/funcs/__init__.py).  The expected bits come from the wheel
(tools/fixtures/gen_half_rounding.py); numpy / ml_dtypes rounding to nearest would fail most of
these cases (see test_nearest_rounding_would_not_match).
"""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import phi

DATA = np.load(Path(__file__).with_name("data_paddle") / "half_rounding_paddle.npz")
TYPES = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


def _half(dt: str, key: str) -> np.ndarray:
    return DATA[f"{dt}.{key}"].view(TYPES[dt])


def _assert_bits(got, dt: str, key: str) -> None:
    got = np.asarray(got)
    assert got.dtype == TYPES[dt]
    want = DATA[f"{dt}.{key}"]
    g = got.view(np.uint16).reshape(want.shape)
    nan = np.isnan(got.astype(np.float32)).reshape(want.shape) & np.isnan(
        want.view(TYPES[dt]).astype(np.float32))
    bad = (g != want) & ~nan
    assert not bad.any(), (f"{dt} {key}: {int(bad.sum())} of {bad.size} differ, first at "
                           f"{np.argwhere(bad)[0].tolist()}")


CASES = {
    "x": lambda dt: phi.api.cast(DATA["x32"], dt),
    "x64": lambda dt: phi.api.cast(DATA["x64"], dt),
    "scale": lambda dt: phi.api.scale(_half(dt, "x"), scale=2.8, bias=3.2),
    "scale_bias_first": lambda dt: phi.api.scale(_half(dt, "x"), scale=2.8, bias=3.2,
                                                 bias_after_scale=False),
    "full": lambda dt: phi.api.full([4], 0.1, dt),
    "log": lambda dt: phi.api.log(_half(dt, "pos")),
    "add_n": lambda dt: phi.api.add_n([_half(dt, "x"), _half(dt, "pos"), _half(dt, "x")]),
    "sum0": lambda dt: phi.api.sum(_half(dt, "mat"), axis=[0]),
    "sum1": lambda dt: phi.api.sum(_half(dt, "mat"), axis=[1]),
    "exp": lambda dt: phi.api.exp(_half(dt, "x")),
    "erf": lambda dt: phi.api.erf(_half(dt, "x")),
    "multiply": lambda dt: phi.api.multiply(_half(dt, "x"), _half(dt, "pos")),
    "subtract": lambda dt: phi.api.subtract(_half(dt, "x"), _half(dt, "pos")),
    "pow": lambda dt: _run_op("elementwise_pow", {"X": _half(dt, "pos"), "Y": _half(dt, "pos")}),
    "maximum": lambda dt: phi.api.maximum(_half(dt, "x"), _half(dt, "pos")),
}
PARAMS = [(dt, key) for dt in TYPES for key in CASES if f"{dt}.{key}" in DATA.files]


class _Out:
    def __init__(self, array):
        self._array = array

    def numpy(self):
        return self._array


def _run_op(op_type: str, inputs: dict):
    """A legacy op (no eager API for elementwise_pow), through fluid_compat."""
    from fluid_compat import run_op

    return _Out(run_op(op_type, inputs, {})["Out"][0])


@pytest.mark.parametrize(("dt", "key"), PARAMS, ids=[f"{d}-{k}" for d, k in PARAMS])
def test_half_results_equal_paddles_bits(dt, key):
    _assert_bits(CASES[key](dt).numpy(), dt, key)


def test_the_issue_case_scale_gives_5_996():
    out = phi.api.scale(np.array([1.0], np.float16), scale=2.8, bias=3.2).numpy()
    assert out.tolist() == [5.99609375]  # Paddle 2.6.2; round-to-nearest would give 6.0


@pytest.mark.parametrize("dt", list(TYPES))
def test_nearest_rounding_would_not_match(dt):
    """The fixture tells the two rules apart: round-to-nearest misses many of its values."""
    nearest = DATA["x32"].astype(TYPES[dt]).view(np.uint16)
    assert (nearest != DATA[f"{dt}.x"]).mean() > 0.3
