"""Fused inference kernels (Paddle 2.6.2's paddle/phi/kernels/fusion/cpu/): each computes what
the unfused op sequence it replaces computes, in the same operation order.

fc: Out = act(flatten_2d(Input, in_num_col_dims) @ W + Bias) (only ``relu`` is an activation
on CPU; ``padding_weights`` means W is stored [K + 4, N + 4] and W[:K, :N] is used).
fused_softmax_mask: softmax(X + Mask) over the last axis (Mask broadcast over heads).
fused_softmax_mask_upper_triangle: registered on CPU but GPU-only in Paddle (it raises).
self_dp_attention: X [B, S, 3, H, D] holds Q, K, V; softmax(alpha * Q K^T) V -> [B, S, H * D].
fusion_repeated_fc_relu: relu(X W_i + b_i) repeated; fusion_squared_mat_sub:
scalar * ((X Y)^2 - X^2 Y^2).
fused_adam: Adam / AdamW on a list of parameters (an optimizer op, computed on the host).
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument, Unimplemented
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, prod, quiet

__all__ = ["fc_values", "softmax_last"]

FLOATS = ["float32", "float64"]


def fc_values(xp, x, w, bias, in_num_col_dims: int = 1, relu: bool = False,
              padding_weights: bool = False, relu_keeps_nan: bool = False):
    """FCFunctor: x flattened to 2-D at in_num_col_dims, times W (+ bias), optional relu:
    x > 0 ? x : 0 (NaN -> 0), or with ``relu_keeps_nan`` max(x, 0) keeping NaN (the float32
    jit kernel of fusion_repeated_fc_relu; both seen in Paddle-made NaN variants)."""
    if padding_weights:
        w = w[: w.shape[0] - 4, : w.shape[1] - 4]
    rows = prod(x.shape[:in_num_col_dims])
    out = xp.matmul(xp.reshape(x, (rows, prod(x.shape[in_num_col_dims:]))), w)
    if bias is not None:
        out = out + xp.reshape(bias, (1, -1))
    if relu and relu_keeps_nan:
        out = xp.maximum(out, out.dtype.type(0))
    elif relu:
        out = xp.where(out > 0, out, out.dtype.type(0))
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
        h = fc_values(ctx.xp, h, wi, bi, 1, True, relu_keeps_nan=x.dtype == ctx.xp.float32)
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


def _adam_one(p, g, m1, m2, lr, b1p, b2p, beta1, beta2, eps, coeff):
    """One tensor of Adam (coeff None) or AdamW as Paddle's CPU jit kernels compute it."""
    t = p.dtype.type
    one = t(1)
    lr_t = lr * (np.sqrt(one - b2p) / (one - b1p))
    eps_t = eps * np.sqrt(one - b2p)
    base = p if coeff is None else p - lr * t(1.0) * coeff * p
    m1o = beta1 * m1 + (one - beta1) * g
    m2o = beta2 * m2 + (one - beta2) * g * g
    return base + (-lr_t) * (m1o / (np.sqrt(m2o) + eps_t)), m1o, m2o


@register_kernel("fused_adam", ("CPU",), dtypes=FLOATS,
                 input_defs={"skip_update": {"dtype": DataType.ALL_DTYPE}})
def fused_adam(ctx, params: list[Tensor], grads: list[Tensor], learning_rate: Tensor,
               moments1: list[Tensor], moments2: list[Tensor], beta1_pows: list[Tensor],
               beta2_pows: list[Tensor], master_params: list[Tensor],
               skip_update: Tensor | None, beta1: Scalar, beta2: Scalar, epsilon: Scalar,
               chunk_size: int, weight_decay: float, use_adamw: bool, multi_precision: bool,
               use_global_beta_pow: bool
               ) -> tuple[list[Tensor], list[Tensor], list[Tensor], list[Tensor], list[Tensor],
                          list[Tensor]]:
    """Adam (or AdamW with weight_decay) on every parameter, Paddle's Adam(w)DenseKernel per
    tensor: (ParamsOut, Moments1Out, Moments2Out, Beta1PowsOut, Beta2PowsOut, [])."""
    n = len(params)
    for name, v in (("Grads", grads), ("Moments1", moments1), ("Moments2", moments2),
                    ("Beta1Pows", beta1_pows), ("Beta2Pows", beta2_pows)):
        if len(v) != n:
            raise InvalidArgument(f"fused_adam: {name} holds {len(v)} tensors, Params {n}.")
    host = [np.asarray(ctx.to_host(a)) for a in (*params, *grads, *moments1, *moments2,
                                                 *beta1_pows, *beta2_pows)]
    ps, gs, m1s, m2s, b1s, b2s = (host[i * n:(i + 1) * n] for i in range(6))
    skip = skip_update is not None and bool(np.asarray(ctx.to_host(skip_update)).reshape(-1)[0])
    outs: tuple[list, ...] = ([], [], [], [], [])
    lr_host = np.asarray(ctx.to_host(learning_rate)).reshape(-1)
    with quiet(np):
        for p, g, m1, m2, b1p, b2p in zip(ps, gs, m1s, m2s, b1s, b2s, strict=True):
            t = p.dtype.type
            b1, b2, eps = t(float(beta1)), t(float(beta2)), t(float(epsilon))
            if skip:
                res = (p.copy(), m1.copy(), m2.copy())
                pows = (b1p.copy(), b2p.copy())
            else:
                res = _adam_one(p, g.astype(p.dtype), m1, m2, t(lr_host[0]), t(b1p.reshape(-1)[0]),
                                t(b2p.reshape(-1)[0]), b1, b2, eps,
                                t(weight_decay) if use_adamw else None)
                pows = (b1p * b1, b2p * b2)
            for out, v in zip(outs, (*res, *pows), strict=True):
                out.append(ctx.from_host(np.asarray(v, dtype=p.dtype)))
    if use_global_beta_pow:  # updated elsewhere: Paddle leaves them as they are (in place)
        outs[3][:] = [ctx.from_host(v.copy()) for v in b1s]
        outs[4][:] = [ctx.from_host(v.copy()) for v in b2s]
    # master weights exist only for float16 / bfloat16 parameters (not registered on CPU)
    return (*outs, [xp_copy(ctx, m) for m in master_params])


def xp_copy(ctx, a):
    return ctx.xp.asarray(a, copy=True)
