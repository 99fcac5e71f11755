"""Random ops: the engine is the C++ standard's mt19937_64 (its required 10000th
value), seeded draws are deterministic, and every distribution is right within sound bounds
(fixed flag seeds; bounds of 6 standard errors, so a correct kernel fails with probability
< 1e-8). Paddle's own numbers for seeded ops are checked by the single-op fixtures
(tools/fixtures/cases/iorand.py)."""

from __future__ import annotations

import numpy as np
import pytest

from fluid_compat import run_op
from fluid_compat.imperative import run_op_with_operator
from phi import flags
from phi.kernels.funcs.cpu_random import MT19937_64, normal, uniform_int, uniform_real


@pytest.fixture(autouse=True)
def _seeded():
    old = flags.FLAGS["FLAGS_random_op_seed"]
    flags.set_flags({"FLAGS_random_op_seed": 20261125})
    yield
    flags.set_flags({"FLAGS_random_op_seed": old})


def test_mt19937_64_is_the_standard_engine():
    # [rand.predef]: the 10000th consecutive invocation of a default-constructed mt19937_64
    # (seed 5489) produces 9981545732273789042
    assert int(MT19937_64(5489).draw(10000)[-1]) == 9981545732273789042


def test_draws_in_pieces_equal_one_draw():
    a = MT19937_64(7)
    pieces = np.concatenate([a.draw(5), a.draw(400), a.draw(1)])
    assert np.array_equal(pieces, MT19937_64(7).draw(406))


def _within(mean, expected, sd, n):
    assert abs(mean - expected) < 6 * sd / np.sqrt(n), (mean, expected)


def test_uniform_real_and_normal_moments():
    n = 200_000
    u = uniform_real(MT19937_64(1), n, -2.0, 3.0, np.float32)
    assert u.dtype == np.float32 and u.min() >= -2 and u.max() < 3
    _within(u.mean(), 0.5, 5 / np.sqrt(12), n)
    g = normal(MT19937_64(2), n, 1.0, 2.0, np.float64)
    _within(g.mean(), 1.0, 2.0, n)
    assert abs(g.std() - 2.0) < 6 * 2.0 / np.sqrt(2 * n)


def test_uniform_int_is_uniform_and_inclusive():
    n = 100_000
    v = uniform_int(MT19937_64(3), n, -3, 6)
    counts = np.bincount(v + 3, minlength=10)
    assert v.min() == -3 and v.max() == 6
    chi2 = ((counts - n / 10) ** 2 / (n / 10)).sum()
    assert chi2 < 60  # 9 degrees of freedom: P(chi2 > 60) < 1e-8


def test_seeded_ops_repeat_and_unseeded_ones_vary_with_the_flag():
    a = run_op("uniform_random", {}, {"shape": [5], "seed": 3})["Out"][0]
    b = run_op("uniform_random", {}, {"shape": [5], "seed": 3})["Out"][0]
    assert np.array_equal(a, b)
    flags.set_flags({"FLAGS_random_op_seed": 0})
    c = run_op("bernoulli", {"X": np.full(64, 0.5, np.float32)})["Out"][0]
    d = run_op("bernoulli", {"X": np.full(64, 0.5, np.float32)})["Out"][0]
    assert not np.array_equal(c, d)  # fresh entropy: equal with probability 2**-64


def test_truncated_gaussian_stays_within_two_std():
    out = run_op("truncated_gaussian_random", {},
                 {"shape": [20000], "mean": 1.0, "std": 0.5, "seed": 4})["Out"][0]
    assert out.min() >= 0.0 and out.max() <= 2.0
    _within(out.mean(), 1.0, 0.5, out.size)
    # the variance of N(0, 1) truncated to +-2 is 0.7737
    assert abs(out.var() / 0.25 - 0.7737) < 0.03


def test_randint_range_and_randperm_is_a_permutation():
    v = run_op("randint", {}, {"shape": [1000], "low": 5, "high": 8})["Out"][0]
    assert v.dtype == np.int64 and set(np.unique(v)) == {5, 6, 7}
    p = run_op("randperm", {}, {"n": 50})["Out"][0]
    assert sorted(p.tolist()) == list(range(50))


def test_bernoulli_exponential_poisson_means():
    n = 100_000
    b = run_op("bernoulli", {"X": np.full(n, 0.3, np.float64)})["Out"][0]
    assert set(np.unique(b)) <= {0.0, 1.0}
    _within(b.mean(), 0.3, np.sqrt(0.21), n)
    e = run_op("exponential", {"X": np.zeros(n, np.float64)}, {"lambda": 4.0})["Out"][0]
    assert e.min() >= 0
    _within(e.mean(), 0.25, 0.25, n)
    p = run_op("poisson", {"X": np.full(n, 3.0, np.float32)})["Out"][0]
    assert p.dtype == np.float32
    _within(p.mean(), 3.0, np.sqrt(3.0), n)


def test_multinomial_frequencies_and_no_replacement():
    probs = np.array([0.1, 0.0, 0.6, 0.3], np.float32)
    out = run_op("multinomial", {"X": probs}, {"num_samples": 50000, "replacement": True})
    counts = np.bincount(out["Out"][0], minlength=4) / 50000
    assert counts[1] == 0 and np.all(np.abs(counts - probs) < 6 * np.sqrt(0.25 / 50000))
    once = run_op("multinomial", {"X": np.array([[0.2, 0.3, 0.5]], np.float64)},
                  {"num_samples": 3, "replacement": False})["Out"][0]
    assert sorted(once[0].tolist()) == [0, 1, 2]
    with pytest.raises(Exception, match="non-zero categories"):
        run_op("multinomial", {"X": probs}, {"num_samples": 4, "replacement": False})


def test_dropout_nd_shares_the_mask_along_other_axes():
    x = np.ones((4, 3, 5), np.float32)
    out, _ = run_op_with_operator(
        "dropout_nd", {"X": x}, {"dropout_prob": 0.5, "is_test": False, "axis": [1],
                                 "dropout_implementation": "upscale_in_train"},
        extra_outputs=["Mask"])
    y, mask = out["Out"][0], out["Mask"][0]
    assert mask.shape == (1, 3, 1)
    np.testing.assert_array_equal(y, np.broadcast_to(mask * 2.0, x.shape))
