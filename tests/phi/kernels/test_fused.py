"""Fused inference kernels against their unfused definitions written out in float64 loops
(Paddle-made cases of every op: tools/fixtures/cases/fused.py, run by test_corpus_cases).
self_dp_attention has no Paddle-made case: Paddle 2.6.2's CPU kernel needs AVX-512 (SIGILL on
the machine that made the fixtures), so this definition is its only check."""

from __future__ import annotations

import math

import numpy as np
import pytest

from phi.core.errors import InvalidArgument, Unimplemented
from tests.phi.kernels.conftest import call_op


def _attention_reference(x, alpha):
    b, s, _, h, d = x.shape
    out = np.zeros((b, s, h * d))
    for bi in range(b):
        for hi in range(h):
            for i in range(s):
                scores = [alpha * sum(float(x[bi, i, 0, hi, t]) * float(x[bi, j, 1, hi, t])
                                      for t in range(d)) for j in range(s)]
                m = max(scores)
                w = [math.exp(v - m) for v in scores]
                total = sum(w)
                for t in range(d):
                    out[bi, i, hi * d + t] = sum(w[j] / total * float(x[bi, j, 2, hi, t])
                                                 for j in range(s))
    return out


@pytest.mark.parametrize(("dtype", "shape", "alpha", "tol"),
                         [(np.float32, (2, 3, 3, 2, 4), 0.5, 1e-5),
                          (np.float64, (1, 4, 3, 1, 3), 1.0, 1e-12)])
def test_self_dp_attention_is_softmax_qk_v(dtype, shape, alpha, tol):
    x = np.random.default_rng(3).uniform(-1, 1, shape).astype(dtype)
    out = call_op("self_dp_attention", x, alpha, shape[3])
    assert out.shape == (shape[0], shape[1], shape[3] * shape[4]) and out.dtype == dtype
    np.testing.assert_allclose(out, _attention_reference(x, alpha), rtol=tol, atol=tol)


def test_self_dp_attention_refuses_a_non_qkv_input():
    with pytest.raises(InvalidArgument):
        call_op("self_dp_attention", np.zeros((1, 2, 2, 1, 4), np.float32), 1.0, 1)


def test_fc_padding_weights_uses_the_top_left_block():
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    w = np.full((7, 6), 100.0)
    w[:3, :2] = [[1, 0], [0, 1], [1, 1]]
    out = call_op("fc", x, w, np.array([0.5, -0.5]), 1, "relu", False, True, False,
                  "float32", 1.0, [1.0], 1.0, False)
    np.testing.assert_array_equal(out, [[2.5, 2.5], [8.5, 8.5]])


def test_fc_refuses_unknown_activation_and_width():
    x, w = np.ones((2, 3), np.float32), np.ones((3, 2), np.float32)
    args = (False, False, False, "float32", 1.0, [1.0], 1.0, False)
    with pytest.raises(InvalidArgument):
        call_op("fc", x, w, None, 1, "gelu", *args)
    with pytest.raises(InvalidArgument):
        call_op("fc", x, np.ones((4, 2), np.float32), None, 1, "", *args)


def test_fusion_squared_mat_sub_hand_worked():
    x = np.array([[1.0, 2.0]])
    y = np.array([[3.0], [4.0]])
    # (1*3 + 2*4)^2 - (1*9 + 4*16) = 121 - 73 = 48, times 0.5
    *_, out = call_op("fusion_squared_mat_sub", x, y, 0.5)
    np.testing.assert_array_equal(out, [[24.0]])


def test_fused_softmax_mask_upper_triangle_is_gpu_only():
    with pytest.raises(Unimplemented):
        call_op("fused_softmax_mask_upper_triangle", np.zeros((1, 1, 2, 2), np.float32))
