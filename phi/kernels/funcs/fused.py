"""Helpers shared by the fused kernels (fc, fusion_repeated_fc_relu, fused_softmax_mask,
self_dp_attention): the fc product and a last-axis softmax."""

from __future__ import annotations


from phi.kernels.funcs import as_array, prod, quiet

__all__ = ["fc_values", "softmax_last"]


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
