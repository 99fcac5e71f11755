"""Quantization arithmetic (phi/kernels/dequantize_linear.py, funcs/quant.py) on hand-worked
values: the two rounding modes, the zero-scale inverse, bit widths, per-channel scales,
weight_quantize's scales and layouts.  Paddle-made cases of every op:
tools/fixtures/cases/quant.py (test_corpus_cases)."""

from __future__ import annotations

import numpy as np
import pytest

from phi.core.errors import InvalidArgument, PreconditionNotMet
from phi.kernels.dequantize_linear import channel_scale, fake_quant
from phi.kernels.funcs.quant import round_half_away
from tests.phi.kernels.conftest import call_op

f32 = np.float32


def test_round_half_away_is_std_round():
    v = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997, -0.49999997, 3.0], f32)
    np.testing.assert_array_equal(round_half_away(np, v),
                                  np.array([-3, -2, -1, 1, 2, 3, 0, 0, 3], f32))


# x / s * 7 lands on .5 steps: round_type 0 goes to even, 1 away from zero
TIES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], f32) / f32(7)


@pytest.mark.parametrize(("round_type", "want"), [(0, [-2, -2, 0, 0, 2, 2]),
                                                  (1, [-3, -2, -1, 1, 2, 3])])
def test_rounding_modes(round_type, want):
    got = fake_quant(np, TIES, np.array([1.0], f32), 7, round_type)
    np.testing.assert_array_equal(got, np.array(want, f32))


def test_round_type0_clips_after_rounding_to_minus_bins_minus_one():
    # QuantTensorFunctor clips to [-bin_cnt - 1, bin_cnt]; round_type 1 clips x to [-s, s] first
    x = np.array([-3.0, 3.0], f32)
    np.testing.assert_array_equal(fake_quant(np, x, np.array([1.0], f32), 127, 0), [-128, 127])
    np.testing.assert_array_equal(fake_quant(np, x, np.array([1.0], f32), 127, 1), [-127, 127])


def test_zero_scale_gives_zeros():
    x = np.zeros((2, 2), f32)
    np.testing.assert_array_equal(fake_quant(np, x, np.array([0.0], f32), 127, 1, True), x)


def test_dequant_multiplies_back():
    # round(0.3 / 0.6 * 127) = round(63.5) = 64 (away), 64 * 0.6 / 127
    got = fake_quant(np, np.array([0.3], f32), np.array([0.6], f32), 127, 1, dequant=True)
    assert got[0] == f32(64) * f32(0.6) / f32(127)


def test_channel_scale_checks_its_size():
    x = np.zeros((2, 3), f32)
    assert channel_scale(np, np.ones(3, f32), x, 1).shape == (1, 3)
    with pytest.raises(PreconditionNotMet):
        channel_scale(np, np.ones(2, f32), x, 1)
    with pytest.raises(InvalidArgument):
        channel_scale(np, np.ones(2, f32), x, 2)


def test_weight_quantize_llm_int8_is_the_transposed_rounded_weight():
    w = np.zeros((64, 16), np.float16)
    w[0, :] = 2.0  # column maxima 2 -> scale 2 / 127
    w[1, 0], w[2, 1] = 1.0, -0.5
    out, scale = call_op("weight_quantize", w, "llm.int8", 80)
    assert out.shape == (16, 64) and out.dtype == np.int8 and scale.dtype == np.float16
    s = np.float32(scale[0])
    assert out[0, 0] == 127 and out[0, 1] == int(round_half_away(np, f32(1.0) / s))
    assert out[1, 2] == int(round_half_away(np, f32(-0.5) / np.float32(scale[1])))


def test_weight_quantize_arch70_is_row_major_plus_128_with_swapped_bytes():
    w = np.zeros((64, 16), np.float16)
    w[0, :4] = [1.0, -1.0, 0.5, 2.0]
    w[5, :4] = [2.0, 2.0, 2.0, 2.0]  # column maxima 2
    out, _ = call_op("weight_quantize", w, "weight_only_int8", 70)
    flat = out.reshape(-1).view(np.uint8)
    q = [64 + 128, -64 + 128, 32 + 128, 127 + 128]  # round(x / (2/127)), biased by 128
    assert list(flat[:4]) == [q[0], q[2], q[1], q[3]]  # bytes 1 and 2 of each word swapped


def test_weight_quantize_refuses_unknown_arch_and_shapes():
    with pytest.raises(InvalidArgument):
        call_op("weight_quantize", np.zeros((64, 16), np.float16), "weight_only_int8", 60)
    with pytest.raises(InvalidArgument):
        call_op("weight_quantize", np.zeros((32, 16), np.float16), "weight_only_int8", 80)


def test_weight_quantize_zero_column_follows_the_cpp_clamp():
    # 0 / 0 is NaN: std::min(127.f, NaN) keeps 127 (int8); static_cast<int>(NaN) is INT_MIN (-7)
    w = np.zeros((64, 16), np.float16)
    out8, scale = call_op("weight_quantize", w, "llm.int8", 80)
    assert (scale == 0).all() and (out8 == 127).all()
