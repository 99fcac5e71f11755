"""Hand-worked half-precision sums that tell Eigen's summation orders apart (the Paddle-made
evidence is tools/fixtures/cases/half.py, checked bit for bit by
tests/fluid_compat/operators/test_half_bits.py).

bfloat16 keeps 8 significant bits and Paddle truncates: from 256 on, adding 1.0 no longer
changes an accumulator (257 truncates to 256).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

import phi

BF16 = ml_dtypes.bfloat16


def test_a_full_sum_is_a_tree_of_1024_leaves():
    # 1025 ones: leaves of 512 and 513 elements, each stalls at 256; 256 + 256 = 512
    assert float(phi.api.sum(np.ones(1025, BF16)).numpy()) == 512.0
    # 1024 ones are one leaf: the sequential sum stalls at 256
    assert float(phi.api.sum(np.ones(1024, BF16)).numpy()) == 256.0
    # 4100 = 2 x 2050 = 4 x 1025: eight leaves of 256, added up the tree: 2048
    assert float(phi.api.sum(np.ones(4100, BF16)).numpy()) == 2048.0


def test_a_partial_sum_is_sequential_however_long():
    out = phi.api.sum(np.ones((2, 3000), BF16), axis=[1]).numpy()
    assert out.astype(np.float32).tolist() == [256.0, 256.0]


def test_a_partial_sum_over_two_axes_runs_the_last_axis_outermost():
    # reduced (i, k) of x[i, j, k], ones except x[3, :, 0] = 256.  Eigen visits k outermost:
    # 1 + 1 + 1 + 256 = 259 -> 258, then eight ones vanish: 258.  Row-major order would
    # reach 9 + 256 = 265 -> 264 instead.
    x = np.ones((4, 2, 3), np.float32)
    x[3, :, 0] = 256.0
    got = phi.api.sum(x.astype(BF16), axis=[0, 2]).numpy().astype(np.float32)
    assert got.tolist() == [258.0, 258.0]


def test_mean_divides_by_the_truncated_count():
    # 2051 ones sum (in order) to 256; T(2051) truncates to 2048 in bfloat16: 0.125
    assert float(phi.api.mean_all(np.ones(2051, BF16)).numpy()) == 0.125


def test_add_n_of_one_input_starts_from_zero():
    out = phi.api.add_n([np.array([-0.0, 1.0], np.float32)]).numpy()
    assert not np.signbit(out).any()
