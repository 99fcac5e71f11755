"""InferMeta of the quantization and fused inference ops that run phi kernels
(dequantize_linear, weight_quantize, fc, fused_softmax_mask*, self_dp_attention, fusion_*).

Dims of -1 are sizes unknown at compile time and pass through.
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import fmt_dims

__all__ = ["dequantize_linear_infer_meta"]


def _set(meta, dims, dtype, layout=None) -> None:
    if meta is None:
        return
    meta.set_dims(tuple(dims))
    meta.set_dtype(dtype)
    if layout is not None:
        meta.set_layout(layout)


def dequantize_linear_infer_meta(x, scale, zero_point, in_accum, in_state, quant_axis: int,
                                 bit_length: int, round_type: int, is_test: bool,
                                 only_observer: bool, y, out_state, out_accum, out_scale
                                 ) -> None:
    """QuantizeLinearOp::InferShape: Y has X's dims and Scale's float type (an int8 X
    dequantizes to Scale's dtype); the observer outputs are [1] or one per channel."""
    if quant_axis >= 0 and len(x.dims) <= quant_axis:
        raise InvalidArgument(f"dequantize_linear: quant_axis {quant_axis} is out of range for "
                              f"X of dims {fmt_dims(x.dims)}.")
    dtype = scale.dtype if scale is not None and scale.dtype in (
        DataType.FLOAT32, DataType.FLOAT64, DataType.FLOAT16) else x.dtype
    _set(y, x.dims, x.dtype if only_observer else dtype, x.layout)
    _set(out_state, (1,), dtype)
    _set(out_accum, (1,), dtype)
    _set(out_scale, (1,) if quant_axis < 0 else (x.dims[quant_axis],), dtype)


def weight_quantize_infer_meta(x, algo: str, arch: int, out, scale) -> None:
    """WeightQuantizeInferMeta: x [k, n] with k % 64 == 0 and n % 16 == 0 -> out int8 [n, k]
    ([n / 2, k] for weight_only_int4), scale [n] in x's dtype."""
    if arch not in (70, 75, 80, 86):
        raise InvalidArgument("weight_quantize: currently, arch only support 70, 75, 80, 86, "
                              f"got {arch}.")
    if len(x.dims) != 2:
        raise InvalidArgument(f"weight_quantize: the x tensor of quant op must be 2D, but got "
                              f"dims {fmt_dims(x.dims)}.")
    k, n = x.dims
    if k != -1 and k % 64:
        raise InvalidArgument(f"weight_quantize: the first dimension of input must be "
                              f"divisible by 64, but got[{k}]")
    if n != -1 and n % 16:
        raise InvalidArgument(f"weight_quantize: the second dimension of input must be "
                              f"divisible by 16, but got[{n}]")
    rows = (n // 2 if n != -1 else -1) if algo == "weight_only_int4" else n
    _set(out, (rows, k), DataType.INT8, x.layout)
    _set(scale, (n,), x.dtype, x.layout)


__all__ += ["weight_quantize_infer_meta"]
