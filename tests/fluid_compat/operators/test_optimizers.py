"""dpsgd, dgc_clip_by_norm, dgc_momentum, merged_adam, sparse_momentum beyond their Paddle-made
cases (tools/fixtures/cases/optim.py): the random engine against the C++ standard, float64
definitions written from Paddle's formulas, and the typed errors."""

from __future__ import annotations

import numpy as np
import pytest

from fluid_compat import run_op
from fluid_compat.operators.fluid_kernels.optimizers import MinstdRand, canonical
from phi.core.errors import InvalidArgument


def test_minstd_rand_10000th_value_is_the_standards():
    # [rand.predef]: the 10000th consecutive invocation of a default-constructed minstd_rand
    # (seed 1) produces 399268537
    e = MinstdRand(1)
    for _ in range(9999):
        e()
    assert e() == 399268537
    assert MinstdRand(2147483647).x == 1  # a seed = 0 mod m gives state 1, as libstdc++


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_canonical_is_in_zero_one(dtype):
    e = MinstdRand(5)
    u = np.array([canonical(e, dtype) for _ in range(2000)])
    assert u.dtype == dtype and (u >= 0).all() and (u < 1).all()
    assert abs(u.mean() - 0.5) < 0.03


def test_dpsgd_default_seed_noise_is_one_gaussian_draw_per_step():
    # seed 0 is the time (as Paddle): the whole tensor moves by the same noise
    p = np.zeros((4, 4), np.float32)
    g = np.zeros((4, 4), np.float32)
    draws = []
    for _ in range(3):
        out = run_op("dpsgd", {"Param": p, "Grad": g, "LearningRate": np.array([1.0], "f")},
                     {"sigma": 1.0, "batch_size": 1.0})["ParamOut"][0]
        assert np.all(out == out.flat[0])
        draws.append(-out.flat[0])
    assert all(np.isfinite(draws)) and max(abs(d) for d in draws) < 10


def _sparse_ref(p, g, v, index, axis, lr, mu, nesterov=False, l2=0.0, rescale=1.0):
    dense = np.zeros_like(p)
    for k, i in enumerate(index):
        if axis == 0:
            dense[i] += g[k] * rescale
        else:
            dense[:, i] += g[:, k] * rescale
    dense = dense + l2 * p
    v_out = v * mu + dense
    step = dense + v_out * mu if nesterov else v_out
    return p - lr * step, v_out


@pytest.mark.parametrize("axis", [0, 1])
def test_sparse_momentum_matches_the_float64_definition(axis):
    r = np.random.RandomState(axis)
    p, v = r.randn(4, 5), r.randn(4, 5)
    index = np.array([3, 1, 3], np.int64)
    g = r.randn(3, 5) if axis == 0 else r.randn(4, 3)
    got = run_op("sparse_momentum",
                 {"Param": p, "Grad": g, "Velocity": v, "Index": index,
                  "LearningRate": np.array([0.5])},
                 {"mu": 0.75, "axis": axis, "use_nesterov": True,
                  "regularization_method": "l2_decay", "regularization_coeff": 0.25,
                  "rescale_grad": 2.0})
    want_p, want_v = _sparse_ref(p, g, v, index, axis, 0.5, 0.75, True, 0.25, 2.0)
    np.testing.assert_allclose(got["ParamOut"][0], want_p, rtol=1e-12)
    np.testing.assert_allclose(got["VelocityOut"][0], want_v, rtol=1e-12)


@pytest.mark.parametrize("attrs, index, msg", [
    ({"mu": 0.9, "axis": 2}, np.array([0], np.int32), "axis"),
    ({"mu": 0.9}, np.array([], np.int32), "empty"),
    ({"mu": 0.9}, np.array([[0, 1]], np.int32), "second dimension"),
    ({"mu": 0.9, "multi_precision": True}, np.array([0], np.int32), "MasterParam"),
])
def test_sparse_momentum_errors(attrs, index, msg):
    n = max(index.size, 1)
    with pytest.raises(InvalidArgument, match=msg):
        run_op("sparse_momentum", {"Param": np.ones((3, 2), "f"),
                                   "Grad": np.ones((n, 2), "f"),
                                   "Velocity": np.ones((3, 2), "f"), "Index": index,
                                   "LearningRate": np.array([0.1], "f")}, attrs)


def test_dgc_momentum_sgd_step_uses_the_divided_gradient():
    # from rampup_begin_step on: p -= lr * g / nranks, velocity untouched
    ins = {"Param": np.ones(3, "f"), "Grad": np.full(3, 3.0, "f"), "Velocity": np.ones(3, "f"),
           "LearningRate": np.array([0.5], "f"), "current_step": np.array([4.0], "f"),
           "nranks": np.array([3.0], "f")}
    got = run_op("dgc_momentum", ins, {"mu": 0.9, "rampup_begin_step": 4.0})
    np.testing.assert_array_equal(got["ParamOut"][0], np.full(3, 0.5, "f"))
    np.testing.assert_array_equal(got["Grad_out"][0], np.ones(3, "f"))
    np.testing.assert_array_equal(got["VelocityOut"][0], np.ones(3, "f"))


def test_merged_adam_counts_must_agree():
    one = [np.ones(2, "f")]
    with pytest.raises(InvalidArgument, match="Moment1"):
        run_op("merged_adam", {"Param": one * 2, "Grad": one * 2, "LearningRate": one * 2,
                               "Moment1": one, "Moment2": one * 2, "Beta1Pow": one * 2,
                               "Beta2Pow": one * 2}, {})
