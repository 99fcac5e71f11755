"""Fused inference kernels (Paddle 2.6.2's paddle/phi/kernels/fusion/cpu/): each computes what
the unfused op sequence it replaces computes, in the same operation order.

fc: Out = act(flatten_2d(Input, in_num_col_dims) @ W + Bias) (only ``relu`` is an activation
on CPU; ``padding_weights`` means W is stored [K + 4, N + 4] and W[:K, :N] is used).
fused_softmax_mask: softmax(X + Mask) over the last axis (Mask broadcast over heads).
fused_softmax_mask_upper_triangle: registered on CPU but GPU-only in Paddle (it raises).
self_dp_attention: X [B, S, 3, H, D] holds Q, K, V; softmax(alpha * Q K^T) V -> [B, S, H * D].
fusion_repeated_fc_relu: relu(X W_i + b_i) repeated; fusion_squared_mat_sub:
scalar * ((X Y)^2 - X^2 Y^2).
"""

from __future__ import annotations

from phi.core.errors import InvalidArgument, Unimplemented
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, prod, quiet

__all__ = ["fc_values", "softmax_last"]

FLOATS = ["float32", "float64"]


def fc_values(xp, x, w, bias, in_num_col_dims: int = 1, relu: bool = False,
              padding_weights: bool = False):
    """FCFunctor: x flattened to 2-D at in_num_col_dims, times W (+ bias), optional relu."""
    if padding_weights:
        w = w[: w.shape[0] - 4, : w.shape[1] - 4]
    rows = prod(x.shape[:in_num_col_dims])
    out = xp.matmul(xp.reshape(x, (rows, prod(x.shape[in_num_col_dims:]))), w)
    if bias is not None:
        out = out + xp.reshape(bias, (1, -1))
    if relu:
        out = xp.maximum(out, out.dtype.type(0))
    return as_array(xp, out.astype(x.dtype))


def softmax_last(xp, v):
    """Softmax over the last axis, max subtracted first (Paddle's CPU softmax)."""
    with quiet(xp):
        e = xp.exp(v - xp.max(v, axis=-1, keepdims=True))
        return e / xp.sum(e, axis=-1, keepdims=True)


@register_kernel("fc", ("CPU",), dtypes=FLOATS)
def fc(ctx, input: Tensor, w: Tensor, bias: Tensor | None, in_num_col_dims: int,
       activation_type: str, use_mkldnn: bool, padding_weights: bool, use_quantizer: bool,
       mkldnn_data_type: str, scale_in: float, scale_weights: list[float], scale_out: float,
       force_fp32_output: bool) -> Tensor:
    """act(Input @ W + Bias); activation_type "relu" or none (the oneDNN attributes unused)."""
    out = fc_values(ctx.xp, input, w, bias, in_num_col_dims, activation_type == "relu",
                    padding_weights)
    rows = tuple(input.shape[:in_num_col_dims])
    return ctx.xp.reshape(out, (*rows, out.shape[-1]))


@register_kernel("fused_softmax_mask", ("CPU",), dtypes=FLOATS)
def fused_softmax_mask(ctx, x: Tensor, mask: Tensor) -> Tensor:
    """softmax(X + Mask) over the last axis."""
    xp = ctx.xp
    with quiet(xp):
        return as_array(xp, softmax_last(xp, x + mask).astype(x.dtype))


@register_kernel("fused_softmax_mask_upper_triangle", ("CPU",), dtypes=FLOATS)
def fused_softmax_mask_upper_triangle(ctx, x: Tensor) -> Tensor:
    """Paddle 2.6.2 registers it on CPU and raises: the op is GPU-only."""
    raise Unimplemented("Softmax mask fuse op only supports GPU now.")


@register_kernel("self_dp_attention", ("CPU",), dtypes=FLOATS)
def self_dp_attention(ctx, x: Tensor, alpha: float, head_number: int) -> Tensor:
    """softmax(alpha * Q K^T) V per batch and head, Q / K / V = X[:, :, 0 / 1 / 2]."""
    xp = ctx.xp
    if x.ndim != 5 or x.shape[2] != 3:
        raise InvalidArgument(f"self_dp_attention: X must be [batch, seq, 3, heads, head_size], "
                              f"got {list(x.shape)}.")
    q, k, v = (xp.permute_dims(x[:, :, i], (0, 2, 1, 3)) for i in range(3))  # [B, H, S, D]
    t = x.dtype.type
    with quiet(xp):
        scores = xp.matmul(q, xp.matrix_transpose(k)) * t(alpha)
        out = xp.matmul(softmax_last(xp, scores), v)
    b, s, _, h, d = x.shape
    return as_array(xp, xp.reshape(xp.permute_dims(out, (0, 2, 1, 3)), (b, s, h * d))
                    .astype(x.dtype))


@register_kernel("fusion_repeated_fc_relu", ("CPU",), dtypes=FLOATS)
def fusion_repeated_fc_relu(ctx, x: Tensor, w: list[Tensor], bias: list[Tensor]
                            ) -> tuple[list[Tensor], Tensor]:
    """(ReluOut: every layer but the last, Out) of relu(h @ W_i + b_i) repeated."""
    if len(w) != len(bias) or len(w) < 2:
        raise InvalidArgument(f"fusion_repeated_fc_relu: W ({len(w)}) and Bias ({len(bias)}) "
                              "must hold the same number (at least 2) of tensors.")
    outs, h = [], x
    for wi, bi in zip(w, bias, strict=True):
        h = fc_values(ctx.xp, h, wi, bi, 1, True)
        outs.append(h)
    return outs[:-1], outs[-1]


@register_kernel("fusion_squared_mat_sub", ("CPU",), dtypes=FLOATS)
def fusion_squared_mat_sub(ctx, x: Tensor, y: Tensor, scalar: float
                           ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(X^2, Y^2, (X Y)^2, scalar * ((X Y)^2 - X^2 Y^2))."""
    xp = ctx.xp
    t = x.dtype.type
    with quiet(xp):
        sx, sy = x * x, y * y
        xy = xp.matmul(x, y)
        sxy = xy * xy
        out = (sxy - xp.matmul(sx, sy)) * t(scalar)
    return sx, sy, sxy, as_array(xp, out.astype(x.dtype))
