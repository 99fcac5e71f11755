"""InferMeta of the quantization / fused phi kernels (phi/infermeta/fusion.py, and by their
arity unary.py, ternary.py, multiary.py): output dims and dtypes, unknown (-1) dims at compile
time, and the checks that raise."""

from __future__ import annotations

import pytest

from phi.common import DataType
from phi.core.errors import InvalidArgument
from phi.core.tensor import MetaTensor
from phi.infermeta import (
    dequantize_linear_infer_meta,
    fc_infer_meta,
    fused_softmax_mask_infer_meta,
    fusion_squared_mat_sub_infer_meta,
    self_dp_attention_infer_meta,
    viterbi_decode_infer_meta,
    weight_quantize_infer_meta,
)
from tests.phi.infermeta.conftest import meta

FC_ATTRS = (False, False, False, "float32", 1.0, [1.0], 1.0, False)


@pytest.mark.parametrize(("x", "w", "cols", "pad", "out"), [
    ((3, 4), (4, 5), 1, False, (3, 5)),
    ((2, 3, 4), (4, 2), 2, False, (2, 3, 2)),
    ((-1, 2, 2), (4, 3), 1, False, (-1, 3)),
    ((3, 4), (8, 9), 1, True, (3, 5)),
])
def test_fc(x, w, cols, pad, out):
    o = MetaTensor()
    fc_infer_meta(meta(x), meta(w), None, cols, "", FC_ATTRS[0], pad, *FC_ATTRS[2:], o)
    assert o.dims == out and o.dtype is DataType.FLOAT32


@pytest.mark.parametrize(("x", "w", "bias", "act"), [
    ((3, 4), (5, 2), None, ""),  # K mismatch
    ((3, 4), (4, 2), (3,), ""),  # bias width
    ((3, 4), (4, 2), None, "tanh"),  # only relu on CPU
])
def test_fc_errors(x, w, bias, act):
    with pytest.raises(InvalidArgument):
        fc_infer_meta(meta(x), meta(w), meta(bias) if bias else None, 1, act, False, False,
                      *FC_ATTRS[2:], MetaTensor())


def test_dequantize_linear_takes_the_scale_type():
    y, st, ac, sc = (MetaTensor() for _ in range(4))
    dequantize_linear_infer_meta(meta((-1, 3), DataType.INT8), meta((3,)), meta((3,),
                                 DataType.INT32), None, None, 1, 8, 0, True, False, y, st, ac, sc)
    assert y.dims == (-1, 3) and y.dtype is DataType.FLOAT32 and sc.dims == (3,)


def test_weight_quantize_dims():
    out, scale = MetaTensor(), MetaTensor()
    weight_quantize_infer_meta(meta((64, 32), DataType.FLOAT16), "weight_only_int4", 80, out,
                               scale)
    assert out.dims == (16, 64) and out.dtype is DataType.INT8
    assert scale.dims == (32,) and scale.dtype is DataType.FLOAT16
    with pytest.raises(InvalidArgument):
        weight_quantize_infer_meta(meta((60, 32), DataType.FLOAT16), "weight_only_int8", 80,
                                   out, scale)


def test_attention_softmax_mask_and_squared_mat_sub():
    o = MetaTensor()
    self_dp_attention_infer_meta(meta((2, -1, 3, 4, 8)), 1.0, 4, o)
    assert o.dims == (2, -1, 32)
    fused_softmax_mask_infer_meta(meta((2, 4, 8, 8)), meta((2, 1, 8, 8)), o)
    assert o.dims == (2, 4, 8, 8)
    with pytest.raises(InvalidArgument):
        fused_softmax_mask_infer_meta(meta((2, 4, 8, 8)), meta((2, 4, 8, 8)), o)
    outs = [MetaTensor() for _ in range(4)]
    fusion_squared_mat_sub_infer_meta(meta((-1, 3)), meta((3, 5)), 1.0, *outs)
    assert outs[3].dims == (-1, 5) and outs[1].dims == (3, 5)


def test_viterbi_decode():
    scores, path = MetaTensor(), MetaTensor()
    viterbi_decode_infer_meta(meta((4, 7, 5)), meta((5, 5)), meta((4,), DataType.INT64), True,
                              scores, path)
    assert scores.dims == (4,) and path.dims == (4, -1) and path.dtype is DataType.INT64
    with pytest.raises(InvalidArgument):
        viterbi_decode_infer_meta(meta((4, 7, 5)), meta((5, 5)), meta((4,), DataType.INT32),
                                  True, scores, path)
