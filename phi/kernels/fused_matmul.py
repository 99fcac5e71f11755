"""fused_matmul (oneDNN): matmul_v2 / matmul with what the passes folded into it.

X and Y are first reshaped then transposed when both fused_reshape_* and fused_transpose_*
are given (reshape_transpose_matmul_mkldnn_fuse_pass); then trans_x / trans_y, the product
times matmul_alpha, + ResidualData (matmul_elementwise_add_mkldnn_fuse_pass: a binary add
post-op), the activation, times fused_output_scale; the result is transposed then reshaped
when both fused_transpose_Out and fused_reshape_Out are given.

The int8 / uint8 kernels (cpu_quantize_pass): X and Y quantized with Scale_x / Scale_y, the
exact integer product scaled back by (1 / Scale_x) * (matmul_alpha / Scale_y) in float32, the
post-ops as above, then float32 when force_fp32_output, else round(v * Scale_out) saturated to
uint8 after relu / relu6 and to int8 otherwise.

The bfloat16 kernel (cpu_bfloat16_pass): X and Y as bfloat16, the product and post-ops in
float32, Out rounded to bfloat16 (nearest even) unless force_fp32_output.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.core.errors import InvalidArgument, Unimplemented
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet
from phi.kernels.funcs.onednn_post_ops import apply_activation, reshape_dims
from phi.kernels.matmul import matmul

__all__ = ["fused_matmul"]


def _fused_input(xp, t, shape, axis, slot: str):
    if shape and axis:
        t = xp.reshape(t, reshape_dims(t.shape, shape, "fused_matmul", f"fused_reshape_{slot}"))
        if sorted(axis) != list(range(t.ndim)):
            raise InvalidArgument(f"fused_matmul: fused_transpose_{slot}={list(axis)} is no "
                                  f"permutation of {t.ndim} axes.")
        t = xp.permute_dims(t, tuple(axis))
    return t


@register_kernel("fused_matmul", ("ONEDNN",), dtypes=["float32", "bfloat16", "int8", "uint8"],
                 layout=DataLayout.ONEDNN,
                 input_defs={"y": {"dtype": DataType.ALL_DTYPE},
                             "residual_data": {"dtype": DataType.ALL_DTYPE}},
                 output_defs={0: {"dtype": DataType.ALL_DTYPE}})
def fused_matmul(ctx, x: Tensor, y: Tensor, residual_data: Tensor | None, trans_x: bool,
                 trans_y: bool, matmul_alpha: float, fuse_activation: str, fuse_alpha: float,
                 fuse_beta: float, fused_output_scale: float, fused_reshape_X: list[int],
                 fused_transpose_X: list[int], fused_reshape_Y: list[int],
                 fused_transpose_Y: list[int], fused_reshape_Out: list[int],
                 fused_transpose_Out: list[int], mkldnn_data_type: str, Scale_x: float,
                 Scale_y: float, Scale_in_eltwise: float, Scale_out: float,
                 force_fp32_output: bool) -> Tensor:
    """act(matmul_alpha * X' Y' + ResidualData) * fused_output_scale, Out reshaped."""
    xp = ctx.xp
    quantized = x.dtype in (np.int8, np.uint8)
    bf16 = x.dtype == DataType.BFLOAT16.to_numpy()
    if bf16:  # bfloat16 operands, float32 accumulation
        x = x.astype(np.float32)
        y = y.astype(DataType.BFLOAT16.to_numpy()).astype(np.float32)
    elif not quantized and x.dtype != np.float32:
        raise Unimplemented(f"fused_matmul: {x.dtype} X is not implemented.")
    a = _fused_input(xp, x, fused_reshape_X, fused_transpose_X, "X")
    b = _fused_input(xp, y, fused_reshape_Y, fused_transpose_Y, "Y")
    ka = a.shape[0] if a.ndim == 1 else a.shape[-2 if trans_x else -1]
    kb = b.shape[0] if b.ndim == 1 else b.shape[-1 if trans_y else -2]
    if ka != kb:
        raise InvalidArgument(f"fused_matmul: X {list(a.shape)} (trans_x={trans_x}) and Y "
                              f"{list(b.shape)} (trans_y={trans_y}) do not multiply.")
    if quantized and y.dtype != np.int8:
        raise InvalidArgument(f"fused_matmul: could not create a primitive descriptor for a "
                              f"matmul primitive: oneDNN's int8 matmul takes int8 Y, got "
                              f"{y.dtype} (X {x.dtype}).")
    if quantized:
        # integer products summed exactly in float64, then oneDNN's source and weight scales
        acc = matmul(ctx, a.astype(np.float64), b.astype(np.float64), trans_x, trans_y)
        src = np.float32(np.float32(1) / np.float32(Scale_x))
        wei = np.float32(np.float32(matmul_alpha) / np.float32(Scale_y))
        out = acc.astype(np.float32) * np.float32(src * wei)
    else:
        out = matmul(ctx, a, b, trans_x, trans_y).astype(np.float32)
        alpha = np.float32(matmul_alpha)
        if alpha != 1:
            out = out * alpha
    if residual_data is not None:
        out = out + residual_data.astype(np.float32)
    out = apply_activation(xp, out, fuse_activation, fuse_alpha, fuse_beta, "fused_matmul")
    scale = np.float32(fused_output_scale)
    if scale != 1:
        out = out * scale
    if fused_reshape_Out and fused_transpose_Out:
        out = xp.permute_dims(out, tuple(fused_transpose_Out))
        out = xp.reshape(out, reshape_dims(out.shape, fused_reshape_Out, "fused_matmul",
                                           "fused_reshape_Out"))
    if quantized and not force_fp32_output:
        target = np.uint8 if fuse_activation in ("relu", "relu6") else np.int8
        info = np.iinfo(target)
        with quiet(xp):
            out = xp.clip(xp.rint(out * np.float32(Scale_out)), info.min, info.max)
        return xp.ascontiguousarray(out.astype(target))
    if bf16 and not force_fp32_output:
        return xp.ascontiguousarray(out.astype(DataType.BFLOAT16.to_numpy()))
    return xp.ascontiguousarray(out.astype(np.float32))
