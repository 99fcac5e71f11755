"""The random streams of gaussian_inplace, dirichlet and gumbel_softmax against Paddle 2.6.2's
own CPU values (the committed tests/fixtures/single_ops cases of tools/fixtures/cases/
random_streams.py, made after ``paddle.seed(20240607)``): gaussian_inplace and dirichlet bit
for bit, gumbel_softmax to an ulp or two (Paddle's log / exp are Eigen's or the vector
library's).  Also the engine seeding behind ``paddle.seed`` (std::seed_seq) on the C++
reference's published numbers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import run_op
from phi import flags
from phi.kernels.funcs.cpu_random import MT19937_64, normal, seed_seq_engine, seed_seq_generate
from phi.kernels.funcs.libm import libm_log

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "single_ops"
PADDLE_SEED = 20240607  # gen_single_ops.py: paddle.seed(20240607) before every case

BITWISE = ["gaussian_inplace_seed_f32", "gaussian_inplace_seed_f64_odd",
           "gaussian_inplace_global_f32", "gaussian_inplace_global_f64",
           "dirichlet_stream_f32", "dirichlet_stream_f64", "dirichlet_stream_1d_f32",
           "dirichlet_stream_3d_f64", "dirichlet_stream_long_axis_f32",
           "dirichlet_stream_zero_alpha_f32",
           "gumbel_softmax_stream_f32", "gumbel_softmax_stream_hard_3d_f32"]
CLOSE = {"gumbel_softmax_stream_f64": 4e-15, "gumbel_softmax_stream_axis0_f64": 4e-15,
         "gumbel_softmax_stream_long_f32": 3e-6}


@pytest.fixture
def paddle_seed():
    old = flags.FLAGS["FLAGS_random_op_seed"]
    flags.set_flags({"FLAGS_random_op_seed": PADDLE_SEED})
    yield
    flags.set_flags({"FLAGS_random_op_seed": old})


def _case(name):
    case = json.loads((FIXTURES / f"{name}.json").read_text())
    arrays = np.load(FIXTURES / f"{name}.npz")
    inputs = {slot: [arrays[i["npz_key"]] for i in items]
              for slot, items in case["inputs"].items()}
    attrs = {k: v["value"] for k, v in case["op_desc"]["attrs"].items() if v["set_by_case"]}
    (slot, items), = case["outputs"].items()
    return case["op_type"], inputs, attrs, slot, arrays[items[0]["npz_key"]]


def _run(name):
    op, inputs, attrs, slot, want = _case(name)
    got = np.asarray(run_op(op, inputs, attrs)[slot][0])
    assert got.dtype == want.dtype and got.shape == want.shape
    return got, want


@pytest.mark.parametrize("name", BITWISE)
def test_paddle_values_bit_for_bit(name, paddle_seed):
    got, want = _run(name)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(CLOSE))
def test_gumbel_softmax_within_an_ulp_or_two(name, paddle_seed):
    got, want = _run(name)
    np.testing.assert_allclose(got, want, rtol=CLOSE[name], atol=0)


def test_the_fixtures_really_depend_on_the_seed(paddle_seed):
    # the flag is the global seed: another one gives other numbers
    flags.set_flags({"FLAGS_random_op_seed": PADDLE_SEED + 1})
    for name in ("gaussian_inplace_global_f32", "dirichlet_stream_f64",
                 "gumbel_softmax_stream_f32"):
        got, want = _run(name)
        assert not np.array_equal(got, want), name


def test_seed_seq_generate_matches_the_reference_example():
    # cppreference's std::seed_seq example: seq{1, 2, 3, 4, 5}.generate of 10 words
    assert seed_seq_generate([1, 2, 3, 4, 5], 10) == [
        4204997637, 4246533866, 1856049002, 1129615051, 690460811, 1075771511, 46783058,
        3904109078, 1534123438, 1495905678]


def test_paddle_seed_is_a_seed_seq_not_a_direct_seed():
    # gaussian_inplace with seed 0 after paddle.seed(20240607) (case gaussian_inplace_global_f64)
    _, _, _, _, want = _case("gaussian_inplace_global_f64")
    flat = want.reshape(-1)
    assert np.array_equal(normal(seed_seq_engine(PADDLE_SEED), flat.size, 0.0, 1.0,
                                 np.float64), flat)
    assert not np.array_equal(normal(MT19937_64(PADDLE_SEED), flat.size, 0.0, 1.0,
                                     np.float64), flat)


def test_libm_log_is_the_c_librarys():
    x = np.array([0.5, 1.0, 2.0, 1e-30, 3.0], np.float32)
    got = libm_log(x)
    assert got.dtype == np.float32 and got[1] == 0
    np.testing.assert_allclose(got, np.log(x.astype(np.float64)), rtol=1e-7)


def test_dirichlet_rows_sum_to_one_and_follow_the_means(paddle_seed):
    alpha = np.tile(np.array([0.5, 1.0, 3.0], np.float64), (4000, 1))
    out = np.asarray(run_op("dirichlet", {"Alpha": [alpha]})["Out"][0])
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=1e-12)
    mean = alpha[0] / alpha[0].sum()  # E[X_i] = a_i / sum(a); Var = m (1 - m) / (sum(a) + 1)
    stderr = np.sqrt(mean * (1 - mean) / (alpha[0].sum() + 1) / len(alpha))
    assert np.all(np.abs(out.mean(axis=0) - mean) < 6 * stderr)


def test_dirichlet_refuses_an_alpha_paddle_would_loop_on_forever(paddle_seed):
    from phi.core.errors import PhiError

    with pytest.raises(PhiError, match="at least -2/3"):
        run_op("dirichlet", {"Alpha": [np.array([1.0, -2.0], np.float32)]})
    with pytest.raises(PhiError, match="at least -2/3"):
        run_op("dirichlet", {"Alpha": [np.array([np.nan, 1.0], np.float64)]})


def test_the_compiled_libm_loops_give_the_c_librarys_bits():
    """Large arrays take numba loops over math.log / math.exp: they must equal the C library's
    logf / log / expf / exp, value by value (the ctypes path small arrays take)."""
    import importlib.util

    from phi.kernels.funcs import libm

    if importlib.util.find_spec("numba") is None or libm._compiled_libm() is None:
        pytest.skip("numba is not installed (or FLAGS_kernel_numba is off)")
    rng = np.random.default_rng(3)
    for dtype in (np.float32, np.float64):
        x = np.concatenate([rng.uniform(1e-6, 1, 40000), rng.uniform(1, 1e6, 1000),
                            [1.0, 0.5, 1e-30, np.inf]]).astype(dtype)
        for name in ("log", "exp"):
            arg = x if name == "log" else (np.log(x) * dtype(0.5)).astype(dtype)
            fast = libm._libm_unary(name, arg, None)
            slow = libm._libm_unary(name, arg[:libm._COMPILED_MIN - 1], None)
            assert fast.dtype == dtype
            np.testing.assert_array_equal(fast[:slow.size], slow)
