"""The ``self_dp_attention`` kernel."""

from __future__ import annotations


from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet
from phi.kernels.funcs.fused import softmax_last


FLOATS = ["float32", "float64"]


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
