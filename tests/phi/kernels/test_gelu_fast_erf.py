"""gelu's exact form from one fitted erfc formula (FLAGS_gelu_fast_erf) against math.erf in
double, and against the fdlibm path it replaces (the flag off) after rounding to float32."""

from __future__ import annotations

import math

import numpy as np
import pytest

from phi.backends.cpu import CPUContext
from phi.common.place import CPUPlace
from phi.flags import set_flags
from phi.kernels.activation import gelu, gelu_erfc

CTX = CPUContext(CPUPlace())


@pytest.fixture(autouse=True)
def _flag_on():
    set_flags({"FLAGS_gelu_fast_erf": True})
    yield
    set_flags({"FLAGS_gelu_fast_erf": True})


def test_matches_math_erf_in_double():
    x = np.concatenate([np.linspace(-9.0, 9.0, 20001), [0.0, 1e-300, -1e-300, 3e-8, 40.0]])
    want = np.array([0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0))) for v in x])
    got = gelu_erfc(np, x.copy())
    # 1 + erf cancels in double where gelu is tiny: both forms carry ~1e-16 absolute noise
    big = np.abs(want) > 1e-6
    np.testing.assert_allclose(got[big], want[big], rtol=2e-8)
    np.testing.assert_allclose(got[~big], want[~big], atol=1e-14)
    assert got[-5] == 0.0 and got[-1] == 40.0


def test_specials():
    x = np.array([np.nan, np.inf, -np.inf, -0.0, -50.0])
    with np.errstate(all="ignore"):
        got = gelu(CTX, x, False)
        want = np.array([0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0))) if math.isfinite(v)
                         else np.nan for v in x])
    assert np.isnan(got[0]) and got[1] == np.inf and np.isnan(got[2])  # -inf * 0, as Paddle
    assert got[3] == 0.0 and np.signbit(got[3]) == np.signbit(want[3])
    assert got[4] == 0.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_flag_off_is_the_fdlibm_path_up_to_rounding(dtype):
    x = (np.random.default_rng(5).standard_normal((64, 33)) * 3).astype(dtype)
    fast = gelu(CTX, x, False)
    set_flags({"FLAGS_gelu_fast_erf": False})
    slow = gelu(CTX, x, False)
    assert fast.dtype == slow.dtype == dtype
    keep = np.abs(slow) > 1e-6  # far-tail values: both are rounding noise of 1 + erf ~ 0
    # float32: an ulp or two where the two doubles round apart (the bound: 1e-5)
    np.testing.assert_allclose(fast[keep], slow[keep], rtol=1e-5 if dtype is np.float32
                               else 1e-7)
    np.testing.assert_allclose(fast[~keep], slow[~keep], atol=1e-9)
