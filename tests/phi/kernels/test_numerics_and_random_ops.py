"""Kernels and InferMeta of check_numerics, pow2_decay_with_linear_warmup and the random ops
rrelu, gaussian_inplace, dirichlet and gumbel_softmax on hand-worked values and, for the random
ops, on statistics with sound bounds (6 standard errors of the estimate: a false failure has
odds below 1e-8 per check) and on seeding.  Paddle's own outputs (deterministic settings,
errors) are the committed tests/fixtures/single_ops cases
(tools/fixtures/cases/numerics_and_random.py), run by
tests/fluid_compat/operators/test_corpus_cases.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from phi import flags
from phi.common import DataType
from phi.core.errors import InvalidArgument, PreconditionNotMet
from phi.core.tensor import MetaTensor
import phi.infermeta as im

NAN, INF = math.nan, math.inf
N = 40000


@pytest.fixture
def seeded():
    """FLAGS_random_op_seed = 1234 for the test."""
    old = flags.flag("FLAGS_random_op_seed")
    flags.set_flags({"FLAGS_random_op_seed": 1234})
    yield
    flags.set_flags({"FLAGS_random_op_seed": old})


def within(estimate, want, stderr, k=6.0):
    assert abs(estimate - want) <= k * stderr, (estimate, want, stderr)


# -- check_numerics -----------------------------------------------------------------------------

def test_check_numerics_counts_and_values(run_op):
    x = np.array([0.0, -0.0, 4.0, -2.0, INF, NAN], np.float64)
    stats, values = run_op("check_numerics", x, "op", "x", 3)
    np.testing.assert_array_equal(stats, [1, 1, 2])
    assert values.dtype == np.float32
    # max / min skip NaN; the mean of a tensor with NaN is NaN
    np.testing.assert_array_equal(values[:2], [INF, -2.0])
    assert math.isnan(values[2])
    stats, values = run_op("check_numerics", np.array([1.0, 2.0, 6.0], np.float32))
    np.testing.assert_array_equal(stats, [0, 0, 0])
    np.testing.assert_allclose(values, [6.0, 1.0, 3.0], rtol=1e-6)


def test_check_numerics_level0_raises_and_complex_checks_both_parts(run_op):
    with pytest.raises(PreconditionNotMet, match="num_nan=1"):
        run_op("check_numerics", np.array([1.0, NAN], np.float32))
    with pytest.raises(PreconditionNotMet):  # complex: raises at every level
        run_op("check_numerics", np.array([1 + 1j, complex(0, INF)], np.complex64), "", "", 3)


# -- pow2_decay_with_linear_warmup ---------------------------------------------------------------

@pytest.mark.parametrize("step, want", [
    (0, 0.5 * 1 / 4), (3, 0.5), (4, (0.5 - 0.01) * (1 - 1 / 6) ** 2 + 0.01), (9, 0.01),
    (100, 0.01)])
def test_pow2_decay_schedule(run_op, step, want):
    lr, new_step = run_op("pow2_decay_with_linear_warmup", np.array([0.3]),
                          np.array([step], np.int64), 4, 10, 0.5, 0.01)
    # base_lr / end_lr are float attributes: want from their float32 values
    np.testing.assert_allclose(lr, [want], rtol=1e-7)
    np.testing.assert_array_equal(new_step, [step + 1])


def test_pow2_decay_infer_meta_checks():
    with pytest.raises(InvalidArgument, match="LearningRate"):
        im.pow2_decay_with_linear_warmup_infer_meta(
            MetaTensor(dims=(2,), dtype=DataType.FLOAT32),
            MetaTensor(dims=(1,), dtype=DataType.INT64), 1, 2, 0.1, 0.0, MetaTensor(),
            MetaTensor())
    with pytest.raises(InvalidArgument, match="int64"):
        im.pow2_decay_with_linear_warmup_infer_meta(
            MetaTensor(dims=(1,), dtype=DataType.FLOAT32),
            MetaTensor(dims=(1,), dtype=DataType.INT32), 1, 2, 0.1, 0.0, MetaTensor(),
            MetaTensor())


# -- rrelu --------------------------------------------------------------------------------------

def test_rrelu_test_mode_uses_the_midpoint(run_op):
    x = np.array([-2.0, -0.0, 3.0, NAN, -INF], np.float64)
    out, noise = run_op("rrelu", x, 0.2, 0.4, True)
    mid = float(np.float32(0.3))  # (lower + upper) / 2 in float
    np.testing.assert_array_equal(noise, [mid, 1.0, 1.0, 1.0, mid])
    np.testing.assert_array_equal(out, [-2.0 * mid, -0.0, 3.0, NAN, -INF])
    assert math.copysign(1.0, out[1]) == -1.0


def test_rrelu_training_is_uniform_and_seeded(run_op, seeded):
    x = np.concatenate([-np.ones(N), np.ones(10)]).astype(np.float32)
    out, noise = run_op("rrelu", x, 0.1, 0.3, False)
    out2, _ = run_op("rrelu", x, 0.1, 0.3, False)
    np.testing.assert_array_equal(out, out2)  # same seed, same draws
    a = noise[:N].astype(np.float64)
    np.testing.assert_array_equal(noise[N:], 1.0)
    np.testing.assert_array_equal(out[:N], -noise[:N])
    assert a.min() >= np.float32(0.1) and a.max() <= np.float32(0.3)
    sd = 0.2 / math.sqrt(12)
    within(a.mean(), 0.2, sd / math.sqrt(N))
    within((a < 0.15).mean(), 0.25, math.sqrt(0.25 * 0.75 / N))


def test_rrelu_bounds_are_checked():
    with pytest.raises(InvalidArgument, match="upper"):
        im.rrelu_infer_meta(MetaTensor(dims=(2,), dtype=DataType.FLOAT32), 0.5, 0.2, True,
                            MetaTensor(), MetaTensor())
    with pytest.raises(InvalidArgument, match="lower"):
        im.rrelu_infer_meta(MetaTensor(dims=(2,), dtype=DataType.FLOAT32), -0.1, 0.2, True,
                            MetaTensor(), MetaTensor())


# -- gaussian_inplace ---------------------------------------------------------------------------

def test_gaussian_inplace_moments_and_seed(run_op):
    x = np.zeros(N, np.float64)
    out = run_op("gaussian_inplace", x, 2.0, 3.0, 7)
    np.testing.assert_array_equal(out, run_op("gaussian_inplace", x, 2.0, 3.0, 7))
    assert not np.array_equal(out, run_op("gaussian_inplace", x, 2.0, 3.0, 8))
    within(out.mean(), 2.0, 3.0 / math.sqrt(N))
    within(out.std(), 3.0, 3.0 / math.sqrt(2 * N))
    within((out < 2.0).mean(), 0.5, math.sqrt(0.25 / N))
    assert run_op("gaussian_inplace", np.zeros(3, np.float32), 0.0, 1.0, 1).dtype == np.float32


# -- dirichlet ----------------------------------------------------------------------------------

def test_dirichlet_rows_sum_to_one_with_dirichlet_moments(run_op, seeded):
    alpha = np.array([0.5, 2.0, 3.5])
    out = run_op("dirichlet", np.tile(alpha, (N, 1)))
    assert out.shape == (N, 3) and (out >= 0).all()
    np.testing.assert_allclose(out.sum(-1), 1.0, rtol=1e-12)
    a0 = alpha.sum()
    for i, a in enumerate(alpha):
        var = a * (a0 - a) / (a0 * a0 * (a0 + 1))
        within(out[:, i].mean(), a / a0, math.sqrt(var / N))
    f32 = run_op("dirichlet", np.array([[1.0, 1.0]], np.float32))
    assert f32.dtype == np.float32


def test_dirichlet_rejects_0d():
    with pytest.raises(InvalidArgument, match="rank"):
        im.dirichlet_infer_meta(MetaTensor(dims=(), dtype=DataType.FLOAT32), MetaTensor())


# -- gumbel_softmax -----------------------------------------------------------------------------

def test_gumbel_softmax_hard_follows_the_softmax_probabilities(run_op, seeded):
    logits = np.array([0.0, 1.0, -1.0, 2.0])
    p = np.exp(logits) / np.exp(logits).sum()
    out = run_op("gumbel_softmax", np.tile(logits, (N, 1)), 0.5, True, -1)
    assert set(np.unique(out)) == {0.0, 1.0}
    np.testing.assert_array_equal(out.sum(-1), 1.0)
    freq = out.mean(0)  # Gumbel-max: argmax(x + g) ~ softmax(x) whatever the temperature
    for f, q in zip(freq, p, strict=False):
        within(f, q, math.sqrt(q * (1 - q) / N))


def test_gumbel_softmax_soft_sums_to_one_along_axis(run_op, seeded):
    x = np.random.default_rng(0).normal(size=(3, 5, 2)).astype(np.float32)
    out = run_op("gumbel_softmax", x, 2.0, False, 1)
    assert out.dtype == np.float32 and out.shape == x.shape
    np.testing.assert_allclose(out.sum(1), 1.0, rtol=1e-5)
    with pytest.raises(InvalidArgument, match="axis"):
        run_op("gumbel_softmax", x, 1.0, False, 3)
