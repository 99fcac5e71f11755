"""fused_conv2d / fused_conv3d (oneDNN): the convolution, its Bias, then the post-ops in
Paddle's order: the residual sum (fuse_residual_connection: + ResidualData) and the
activation (fuse_activation with the fuse_alpha / fuse_beta that the passes write as extra
attributes and Paddle hands through the OneDNNContext).

The int8 / uint8 kernels (an Input that cpu_quantize_pass quantized with Scale_in): the float
Filter is quantized per output channel, round half to even and saturated, with Scale_weights
(one value or one per channel); the exact integer accumulation is scaled back by 1 /
(Scale_in * Scale_weights[oc]) in float32, Bias (float) added, the activation applied; then
float32 when force_fp32_output, else round(v * Scale_out) saturated to uint8 after relu /
relu6 and to int8 otherwise.  (Checked bitwise against Paddle-made cases.)  The int8 residual
sum (Scale_in_eltwise) is not implemented.

bfloat16 (mkldnn_data_type=bfloat16, cpu_bfloat16_pass): Input and Filter rounded to
bfloat16, the convolution and post-ops in float32, the Output rounded to bfloat16 (nearest
even) unless force_fp32_output.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.core.errors import InvalidArgument, Unimplemented
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.conv import conv_compute
from phi.kernels.funcs import quiet
from phi.kernels.funcs.onednn_post_ops import apply_activation

__all__ = ["fused_conv", "fused_conv2d", "fused_conv3d"]


def _bf16():
    return DataType.BFLOAT16.to_numpy()  # ml_dtypes' bfloat16, imported when first needed


def _dnn(ctx, name: str, default):
    """An attribute Paddle reads from the OneDNNContext (``default`` without one)."""
    has = getattr(ctx, "has_dnn_attr", None)
    return ctx.dnn_attr(name, default) if has is not None and has(name) else default


def fused_conv(ctx, op_type: str, input, filter, bias, residual_param, strides, paddings,
               padding_algorithm: str, dilations, groups: int, data_format: str,
               mkldnn_data_type: str, fuse_activation: str, fuse_residual_connection: bool,
               force_fp32_output: bool):
    """The shared body of fused_conv2d and fused_conv3d."""
    xp = ctx.xp
    rank = 5 if op_type == "fused_conv3d" else 4
    if input.ndim != rank or filter.ndim != rank:
        raise InvalidArgument(f"{op_type}: Input and Filter must be {rank}-D, got "
                              f"{list(input.shape)} and {list(filter.shape)}.")
    if mkldnn_data_type not in ("float32", "int8", "bfloat16", ""):
        raise InvalidArgument(f"{op_type}: mkldnn_data_type must be float32, int8 or "
                              f"bfloat16, got {mkldnn_data_type!r}.")
    if input.dtype in (np.int8, np.uint8):
        return _int8_conv(ctx, op_type, input, filter, bias, residual_param, strides, paddings,
                          padding_algorithm, dilations, groups, data_format, fuse_activation,
                          fuse_residual_connection, force_fp32_output)
    bf16 = mkldnn_data_type == "bfloat16" or input.dtype == _bf16()
    if bf16:  # oneDNN's bfloat16 conv: bf16 operands, float32 accumulation and post-ops
        input = input.astype(_bf16()).astype(np.float32)
        filter = filter.astype(_bf16()).astype(np.float32)
    if bias is not None and bias.ndim != 1:
        raise InvalidArgument(f"{op_type}: Bias must be 1-D, got shape {list(bias.shape)}.")
    out = conv_compute(ctx, input, filter, strides, paddings, padding_algorithm, dilations,
                       groups, data_format, bias=bias)
    if fuse_residual_connection:
        if residual_param is None:
            raise InvalidArgument(f"{op_type}: fuse_residual_connection is true but "
                                  "ResidualData is missing.")
        if tuple(residual_param.shape) != tuple(out.shape):
            raise InvalidArgument(
                f"{op_type}: Output and residual param must have the same dimension sizes, "
                f"got Output {list(out.shape)} and ResidualData "
                f"{list(residual_param.shape)}.")
        out = xp.add(out, residual_param.astype(out.dtype))
    out = apply_activation(xp, out, fuse_activation, float(_dnn(ctx, "fuse_alpha", 0.0)),
                           float(_dnn(ctx, "fuse_beta", 0.0)), op_type)
    if bf16 and not force_fp32_output:
        out = out.astype(_bf16())  # round to nearest even
    return xp.ascontiguousarray(out)


def _int8_conv(ctx, op_type, input, filter, bias, residual_param, strides, paddings,
               padding_algorithm, dilations, groups, data_format, fuse_activation,
               fuse_residual_connection, force_fp32_output):
    xp = ctx.xp
    if fuse_residual_connection:
        raise Unimplemented(f"{op_type}: the int8 residual sum (Scale_in_eltwise) is not "
                            "implemented.")
    scale_in = np.float32(_dnn(ctx, "Scale_in", 1.0))
    weights = np.asarray(_dnn(ctx, "Scale_weights", [1.0]), np.float32).reshape(-1)
    out_ch = filter.shape[0]
    if weights.size not in (1, out_ch):
        raise InvalidArgument(f"{op_type}: Scale_weights has {weights.size} values; expected 1 "
                              f"or one per output channel ({out_ch}).")
    weights = np.broadcast_to(weights, (out_ch,))
    shape = (out_ch,) + (1,) * (filter.ndim - 1)
    with quiet(xp):
        wq = xp.clip(xp.rint(filter.astype(np.float32) * xp.reshape(weights, shape)), -128, 127)
        # integer products summed exactly (|acc| < 2^53 in float64)
        acc = conv_compute(ctx, input.astype(np.float64), wq.astype(np.float64), strides,
                           paddings, padding_algorithm, dilations, groups, data_format)
        channel_axis = acc.ndim - 1 if data_format in ("NHWC", "NDHWC") else 1
        bshape = [1] * acc.ndim
        bshape[channel_axis] = out_ch
        back = (np.float32(1) / (scale_in * weights)).astype(np.float32)
        v = acc.astype(np.float32) * xp.reshape(back, bshape)
        if bias is not None:
            v = v + xp.reshape(bias.astype(np.float32), bshape)
    v = apply_activation(xp, v.astype(np.float32), fuse_activation,
                         float(_dnn(ctx, "fuse_alpha", 0.0)), float(_dnn(ctx, "fuse_beta", 0.0)),
                         op_type)
    if force_fp32_output:
        return xp.ascontiguousarray(v)
    target = np.uint8 if fuse_activation in ("relu", "relu6") else np.int8
    info = np.iinfo(target)
    with quiet(xp):
        q = xp.clip(xp.rint(v * np.float32(_dnn(ctx, "Scale_out", 1.0))), info.min, info.max)
    return xp.ascontiguousarray(q.astype(target))


_CONV_DEFS = {"filter": {"dtype": DataType.ALL_DTYPE}, "bias": {"dtype": DataType.ALL_DTYPE},
              "residual_param": {"dtype": DataType.ALL_DTYPE}}


@register_kernel("fused_conv2d", ("ONEDNN",), dtypes=["float32", "bfloat16", "int8", "uint8"],
                 layout=DataLayout.ONEDNN, input_defs=_CONV_DEFS,
                 output_defs={0: {"dtype": DataType.ALL_DTYPE}})
def fused_conv2d(ctx, input: Tensor, filter: Tensor, bias: Tensor | None,
                 residual_param: Tensor | None, strides: list[int], paddings: list[int],
                 padding_algorithm: str, dilations: list[int], groups: int, data_format: str,
                 mkldnn_data_type: str, fuse_activation: str, fuse_residual_connection: bool,
                 force_fp32_output: bool) -> Tensor:
    """conv2d + Bias, then + ResidualData, then the activation."""
    return fused_conv(ctx, "fused_conv2d", input, filter, bias, residual_param, strides,
                      paddings, padding_algorithm, dilations, groups, data_format,
                      mkldnn_data_type, fuse_activation, fuse_residual_connection,
                      force_fp32_output)


@register_kernel("fused_conv3d", ("ONEDNN",), dtypes=["float32"], layout=DataLayout.ONEDNN)
def fused_conv3d(ctx, input: Tensor, filter: Tensor, bias: Tensor | None,
                 residual_param: Tensor | None, strides: list[int], paddings: list[int],
                 padding_algorithm: str, dilations: list[int], groups: int, data_format: str,
                 mkldnn_data_type: str, fuse_activation: str, fuse_residual_connection: bool,
                 force_fp32_output: bool) -> Tensor:
    """conv3d + Bias, then + ResidualData, then the activation."""
    return fused_conv(ctx, "fused_conv3d", input, filter, bias, residual_param, strides,
                      paddings, padding_algorithm, dilations, groups, data_format,
                      mkldnn_data_type, fuse_activation, fuse_residual_connection,
                      force_fp32_output)
