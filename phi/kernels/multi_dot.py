"""The ``multi_dot`` and ``multi_dot_grad`` kernels."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import multi_dot_out_dims
from phi.kernels.funcs import as_array

__all__ = ["multi_dot"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


@register_kernel("multi_dot", ("CPU", "GPU"), dtypes=REAL)
def multi_dot(ctx, x: list[Tensor]) -> Tensor:
    """The chained product (first / last 1-D: row / column vectors)."""
    dims = multi_dot_out_dims([a.shape for a in x])
    xp = ctx.xp
    out = xp.linalg.multi_dot(list(x)) if len(x) > 2 else xp.dot(x[0], x[1])
    return xp.asarray(out, x[0].dtype).reshape(dims)


_F = ["float32", "float64"]


@register_kernel("multi_dot_grad", ("CPU", "GPU"), dtypes=_F)
def multi_dot_grad(ctx, x: list[Tensor], out_grad: Tensor) -> list[Tensor]:
    """d x_i = (x_0 ... x_{i-1})^T dout (x_{i+1} ... x_{n-1})^T, a 1-D first / last operand a
    row / column vector."""
    xp = ctx.xp
    mats = list(x)
    if mats[0].ndim == 1:
        mats[0] = mats[0][None, :]
    if mats[-1].ndim == 1:
        mats[-1] = mats[-1][:, None]
    g = xp.reshape(out_grad, (mats[0].shape[0], mats[-1].shape[1]))
    n = len(mats)
    left = [None] * n  # product of the operands before i
    right = [None] * n  # product of the operands after i
    for i in range(1, n):
        left[i] = mats[0] if i == 1 else left[i - 1] @ mats[i - 1]
    for i in range(n - 2, -1, -1):
        right[i] = mats[-1] if i == n - 2 else mats[i + 1] @ right[i + 1]
    out = []
    for i, a in enumerate(x):
        d = g if left[i] is None else left[i].T @ g
        d = d if right[i] is None else d @ right[i].T
        out.append(as_array(xp, xp.reshape(d, a.shape).astype(a.dtype, copy=False)))
    return out
