"""batch_norm / batch_norm_infer, flatten / flatten_infer, hardswish, log_softmax, dropout:
Paddle's recorded cases, formulas worked out directly, and their InferMeta."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from phi.common import DataType, Scalar
from phi.core.errors import InvalidArgument
from phi.core.tensor import MetaTensor
from phi.infermeta import (
    batch_norm_infer_meta,
    dropout_infer_meta,
    flatten_infer_meta,
    unchanged_infer_meta_check_axis,
)
from phi.infermeta.funcs import MetaConfig
from tests.phi.kernels.test_nn_support import (
    assert_case_output,
    corpus_cases,
    load_case,
    run_kernel,
)

RNG = np.random.default_rng(3)


# -- batch_norm --------------------------------------------------------------------------------

def _bn_inputs(arrays):
    return [arrays[f"in.{s}.0"] for s in ("X", "Mean", "Variance", "Scale", "Bias")]


@pytest.mark.parametrize("name", corpus_cases("batch_norm", fallback=("batch_norm_test_nhwc",)))
def test_batch_norm_matches_paddle(name):
    case, arrays, a = load_case(name)
    global_stats = (a["is_test"] and not a["trainable_statistics"]) or a["use_global_stats"]
    outs = run_kernel("batch_norm", _bn_inputs(arrays),
                      [a["is_test"], a["momentum"], a["epsilon"], a["data_layout"],
                       a["use_global_stats"], a["trainable_statistics"]])
    slots = ("Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance")
    for slot, got in zip(slots, outs, strict=False):
        if f"out.{slot}.0" in arrays:
            assert_case_output(case, got, arrays, slot)
    assert outs[5].shape == (0,)  # ReserveSpace: cuDNN only
    if global_stats:  # the signature Paddle records for these cases is batch_norm_infer
        outs = run_kernel("batch_norm_infer", _bn_inputs(arrays),
                          [a["momentum"], a["epsilon"], a["data_layout"]])
        for slot, got in zip(slots, outs, strict=False):
            assert_case_output(case, got, arrays, slot)


def _bn_formula(x, mean, var, scale, bias, eps, axis):
    shape = [1] * x.ndim
    shape[axis] = -1
    mean, var, scale, bias = (np.reshape(v, shape) for v in (mean, var, scale, bias))
    return (x - mean) / np.sqrt(var + eps) * scale + bias


@pytest.mark.parametrize("layout, shape, axis", [("NCHW", (2, 3, 4, 5), 1),
                                                 ("NHWC", (2, 4, 5, 3), 3),
                                                 ("NCHW", (6, 3), 1),
                                                 ("NCHW", (2, 3, 4), 1),
                                                 ("NHWC", (2, 2, 3, 4, 3), 4)])
def test_batch_norm_infer_formula(layout, shape, axis):
    x = RNG.standard_normal(shape)
    c = shape[axis]
    mean, var = RNG.standard_normal(c), RNG.random(c) + 0.5
    scale, bias = RNG.standard_normal(c), RNG.standard_normal(c)
    y, mean_out, var_out = run_kernel("batch_norm_infer", [x, mean, var, scale, bias],
                                      [0.9, 1e-5, layout])
    np.testing.assert_allclose(y, _bn_formula(x, mean, var, scale, bias, 1e-5, axis),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(mean_out, mean)
    np.testing.assert_array_equal(var_out, var)
    assert not np.shares_memory(mean_out, mean)


def test_batch_norm_without_scale_and_bias():
    x = RNG.standard_normal((2, 3, 2, 2)).astype(np.float32)
    mean, var = np.zeros(3, np.float32), np.ones(3, np.float32)
    y = run_kernel("batch_norm_infer", [x, mean, var, None, None], [0.9, 0.0, "NCHW"])[0]
    np.testing.assert_allclose(y, x, rtol=1e-6)


def test_batch_norm_training_statistics():
    x = RNG.standard_normal((4, 3, 2, 5))
    mean, var = RNG.standard_normal(3), RNG.random(3) + 0.5
    scale, bias = RNG.standard_normal(3), RNG.standard_normal(3)
    y, mean_out, var_out, saved_mean, saved_inv_std, _reserve = run_kernel(
        "batch_norm", [x, mean, var, scale, bias], [False, 0.8, 1e-5, "NCHW", False, False])
    bm, bv = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    np.testing.assert_allclose(y, _bn_formula(x, bm, bv, scale, bias, 1e-5, 1), rtol=1e-12)
    np.testing.assert_allclose(mean_out, 0.8 * mean + 0.2 * bm, rtol=1e-12)
    np.testing.assert_allclose(var_out, 0.8 * var + 0.2 * bv, rtol=1e-12)
    np.testing.assert_allclose(saved_mean, bm, rtol=1e-12)
    np.testing.assert_allclose(saved_inv_std, 1 / np.sqrt(bv + 1e-5), rtol=1e-12)
    # use_global_stats (jit_convnet's batch_norm) and is_test use the running statistics
    for attrs in ([False, 0.8, 1e-5, "NCHW", True, False], [True, 0.8, 1e-5, "NCHW", False,
                                                            False]):
        y = run_kernel("batch_norm", [x, mean, var, scale, bias], attrs)[0]
        np.testing.assert_allclose(y, _bn_formula(x, mean, var, scale, bias, 1e-5, 1),
                                   rtol=1e-12)


def test_batch_norm_infer_meta():
    def infer(x_dims, c=3, layout="NCHW", config=None):
        outs = [MetaTensor() for _ in range(6)]
        vec = MetaTensor((c,), DataType.FLOAT32)
        batch_norm_infer_meta(MetaTensor(x_dims, DataType.FLOAT32), vec, vec, vec, vec, True,
                              0.9, 1e-5, layout, False, False, *outs, config=config)
        return outs

    y, mean_out, _, saved, _, reserve = infer((2, 5, 5, 3), layout="NHWC")
    assert y.dims == (2, 5, 5, 3) and mean_out.dims == (3,) and saved.dims == (3,)
    assert mean_out.dtype == DataType.FLOAT32 and reserve.dims == (0,)
    assert infer((2, 3), config=MetaConfig(is_runtime=False))[5].dims == (-1,)
    with pytest.raises(InvalidArgument, match="scale"):
        infer((2, 4, 5, 5))
    with pytest.raises(InvalidArgument, match="dimension of input X"):
        infer((3,))
    with pytest.raises(InvalidArgument, match="data_layout"):
        infer((2, 3, 4, 4), layout="CHWN")


# -- flatten -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", corpus_cases("flatten_contiguous_range"))
def test_flatten_matches_paddle(name):
    case, arrays, a = load_case(name)
    out, xshape = run_kernel("flatten", [arrays["in.X.0"]], [a["start_axis"], a["stop_axis"]])
    assert_case_output(case, out, arrays, "Out")
    assert xshape.shape == (0, *arrays["in.X.0"].shape)
    out2 = run_kernel("flatten_infer", [arrays["in.X.0"]], [a["start_axis"], a["stop_axis"]])
    assert_case_output(case, out2, arrays, "Out")


@pytest.mark.parametrize("dims, start, stop, want", [
    ((2, 3, 4, 5), 1, 3, (2, 60)),
    ((2, 3, 4, 5), 1, -1, (2, 60)),
    ((2, 3, 4, 5), 0, 1, (6, 4, 5)),
    ((2, 3, 4, 5), -2, -1, (2, 3, 20)),
    ((2, 3, 4, 5), 2, 2, (2, 3, 4, 5)),
    ((), 0, -1, (1,)),
    ((2, 0, 3), 0, 1, (0, 3)),
])
def test_flatten_dims(dims, start, stop, want):
    x = RNG.standard_normal(dims).astype(np.float32)
    out = run_kernel("flatten_infer", [x], [start, stop])
    assert out.shape == want
    np.testing.assert_array_equal(out.reshape(-1), x.reshape(-1))
    assert not np.shares_memory(out, x)


def test_flatten_dtypes_and_compile_time():
    x = np.arange(24, dtype=np.int16).reshape(2, 3, 4)
    assert run_kernel("flatten", [x], [0, -1])[0].dtype == np.int16
    xb = x.astype(ml_dtypes.bfloat16)
    assert run_kernel("flatten_infer", [xb], [1, 2]).dtype == ml_dtypes.bfloat16
    out = MetaTensor()
    flatten_infer_meta(MetaTensor((-1, 3, 4), DataType.FLOAT32), 0, 1, out)
    assert out.dims == (-1, 4)


@pytest.mark.parametrize("dims, start, stop, match", [
    ((2, 3), 1, 0, "greater than or equal"),
    ((2, 3), 0, 2, "stop_axis"),
    ((2, 3), -3, 1, "start_axis"),
    ((), 1, 1, "0D"),
])
def test_flatten_errors(dims, start, stop, match):
    with pytest.raises(InvalidArgument, match=match):
        flatten_infer_meta(MetaTensor(dims, DataType.FLOAT32), start, stop, MetaTensor())


# -- hardswish, log_softmax --------------------------------------------------------------------

def test_hardswish_values():
    x = np.array([-5, -3, -1.5, 0, 1, 2.9, 3, 4, 10, np.inf, -np.inf, np.nan], np.float32)
    want = np.array([0, 0, -1.5 * 1.5 / 6, 0, 4 / 6, 2.9 * 5.9 / 6, 3, 4, 10, np.inf, np.nan,
                     np.nan], np.float32)
    got = run_kernel("hardswish", [x], [])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    x64 = RNG.standard_normal(50) * 5
    np.testing.assert_allclose(run_kernel("hardswish", [x64], []),
                               x64 * np.clip(x64 + 3, 0, 6) / 6, rtol=1e-15)


def test_hardswish_complex_clips_by_real_part():
    x = np.array([-4 + 1j, -1 + 2j, 5 - 1j], np.complex64)
    got = run_kernel("hardswish", [x], [])
    shifted = x + 3
    clipped = np.array([0, shifted[1], 6], np.complex64)
    np.testing.assert_allclose(got, clipped * x / 6, rtol=1e-6)


@pytest.mark.parametrize("name", corpus_cases("hard_swish", "log_softmax"))
def test_activation_matches_paddle(name):
    case, arrays, a = load_case(name)
    if case["op_type"] == "hard_swish":
        out = run_kernel("hardswish", [arrays["in.X.0"]], [])
    else:
        out = run_kernel("log_softmax", [arrays["in.X.0"]], [a["axis"]])
    assert_case_output(case, out, arrays, "Out")


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_log_softmax(axis):
    x = RNG.standard_normal((3, 4, 5)) * 30
    got = run_kernel("log_softmax", [x], [axis])
    # Paddle's LogSoftmaxFunctor clips the shifted logits at -64 (ValueClip; the Paddle-made
    # case log_softmax_clip_minus_64 shows it on -inf and -100)
    shifted = np.maximum(x - x.max(axis=axis, keepdims=True), -64.0)
    want = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert run_kernel("log_softmax", [np.float32(2.5)], [0]) == 0
    with pytest.raises(InvalidArgument, match="axis"):
        unchanged_infer_meta_check_axis(MetaTensor((3, 4), DataType.FLOAT32), 2, MetaTensor())


# -- dropout -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", corpus_cases("dropout", fallback=()))
def test_dropout_matches_paddle(name):
    case, arrays, a = load_case(name)
    out, mask = run_kernel("dropout", [arrays["in.X.0"], None],
                           [Scalar(a["dropout_prob"]), a["is_test"],
                            a["dropout_implementation"], a.get("seed", 0),
                            a.get("fix_seed", False)])
    assert_case_output(case, out, arrays, "Out")
    assert mask.dtype == np.uint8 and mask.shape == out.shape


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dropout_test_mode(dtype):
    x = RNG.standard_normal((3, 4)).astype(dtype)
    p = Scalar(0.3)
    out, mask = run_kernel("dropout", [x, None], [p, True, "upscale_in_train", 0, False])
    np.testing.assert_array_equal(out, x)
    assert not np.shares_memory(out, x) and mask.dtype == np.uint8
    out, _ = run_kernel("dropout", [x, None], [p, True, "downgrade_in_infer", 0, False])
    factor = np.float32(1) - np.float32(0.3)  # static_cast<T>(1.0f - p) with p a float
    np.testing.assert_array_equal(out, x * dtype(factor))


def test_dropout_bfloat16_test_mode():
    x = np.array([1.0, -2.5, 3.0], ml_dtypes.bfloat16)
    out, _ = run_kernel("dropout", [x, None], [Scalar(0.5), True, "downgrade_in_infer", 0,
                                                False])
    assert out.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(out.astype(np.float32), [0.5, -1.25, 1.5])


def test_dropout_training():
    x = RNG.standard_normal((200, 50)).astype(np.float32) + 5
    seed = np.array([42], np.int32)
    out, mask = run_kernel("dropout", [x, seed], [Scalar(0.25), False, "upscale_in_train", 0,
                                                  False])
    kept = mask == 1
    assert 0.7 < kept.mean() < 0.8
    np.testing.assert_allclose(out[kept], x[kept] / np.float32(0.75), rtol=1e-6)
    assert np.all(out[~kept] == 0)
    _again, mask2 = run_kernel("dropout", [x, seed], [Scalar(0.25), False, "upscale_in_train",
                                                     0, False])
    np.testing.assert_array_equal(mask, mask2)  # the Seed tensor makes it reproducible
    out, mask = run_kernel("dropout", [x, None], [Scalar(0.25), False, "downgrade_in_infer", 7,
                                                  True])
    np.testing.assert_array_equal(out, np.where(mask == 1, x, 0))
    out, mask = run_kernel("dropout", [x, None], [Scalar(1.0), False, "upscale_in_train", 0,
                                                  False])
    assert not out.any() and not mask.any()


def test_dropout_infer_meta_checks_the_seed_tensor():
    out, mask = MetaTensor(), MetaTensor()
    x = MetaTensor((3, 4), DataType.FLOAT32)
    dropout_infer_meta(x, None, Scalar(0.5), True, "upscale_in_train", 0, False, out, mask)
    assert mask.dims == (3, 4) and mask.dtype == DataType.UINT8
    with pytest.raises(InvalidArgument, match="seed"):
        dropout_infer_meta(x, MetaTensor((2,), DataType.INT32), Scalar(0.5), False,
                           "upscale_in_train", 0, False, out, mask)
