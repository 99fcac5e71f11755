"""The ``bilinear`` and ``bilinear_grad`` kernels."""

from __future__ import annotations



from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array

__all__ = ["bilinear"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


@register_kernel("bilinear", ("CPU", "GPU"), dtypes=REAL)
def bilinear(ctx, x: Tensor, y: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    """out[b, s] = x[b] W[s] y[b] (+ bias[0, s])."""
    xp = ctx.xp
    if x.ndim != 2 or y.ndim != 2 or weight.ndim != 3 or weight.shape[1:] != (x.shape[1],
                                                                              y.shape[1]):
        raise InvalidArgument(f"bilinear_tensor_product: X {list(x.shape)}, Y {list(y.shape)} "
                              f"and Weight {list(weight.shape)} do not fit [B, M], [B, N], "
                              "[S, M, N].")
    out = xp.einsum("bm,smn,bn->bs", x, weight, y)
    if bias is not None:
        out = out + bias.reshape(1, -1)
    return out.astype(x.dtype)


_F = ["float32", "float64"]


@register_kernel("bilinear_grad", ("CPU", "GPU"), dtypes=_F)
def bilinear_grad(ctx, x: Tensor, y: Tensor, weight: Tensor,
                  out_grad: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Grads of out[b, s] = x[b] W[s] y[b] + bias[0, s]: dx, dy, dW and dbias ([1, S])."""
    xp = ctx.xp
    g = out_grad
    dx = xp.einsum("bs,smn,bn->bm", g, weight, y)
    dy = xp.einsum("bs,smn,bm->bn", g, weight, x)
    dw = xp.einsum("bs,bm,bn->smn", g, x, y)
    db = xp.sum(g, axis=0, keepdims=True)
    return tuple(as_array(xp, a.astype(x.dtype, copy=False)) for a in (dx, dy, dw, db))
