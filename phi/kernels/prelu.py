"""The ``prelu`` and ``prelu_grad`` kernels."""

from __future__ import annotations



from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet

__all__ = ["prelu"]


@register_kernel("prelu", ("CPU", "GPU"), dtypes=["float32", "float64"])
def prelu(ctx, x: Tensor, alpha: Tensor, data_format: str, mode: str) -> Tensor:
    """x > 0 ? x : alpha * x, alpha per ``mode``: one value ('all'), one per channel
    ('channel', axis 1 for NCHW, the last for NHWC) or one per element of a sample
    ('element', reused across the batch)."""
    xp = ctx.xp
    if mode == "channel":
        shape = [1] * x.ndim
        shape[1 if data_format == "NCHW" else x.ndim - 1] = -1
        a = xp.reshape(alpha, tuple(shape))
    elif mode == "element":
        a = xp.reshape(alpha, (1, *x.shape[1:]))
    else:
        a = xp.reshape(alpha, (-1,))[0]
    with quiet(xp):
        return as_array(xp, xp.where(x > 0, x, a * x))


FLOATS = ["float32", "float64"]


@register_kernel("prelu_grad", ("CPU", "GPU"), dtypes=FLOATS)
def prelu_grad(ctx, x: Tensor, alpha: Tensor, out_grad: Tensor, data_format: str,
               mode: str) -> tuple[Tensor, Tensor]:
    """dx = x > 0 ? dout : alpha * dout; dalpha = sum of x * dout where x <= 0, per alpha
    element (all: one sum; channel: per channel; element: over the batch)."""
    xp = ctx.xp
    if mode == "channel":
        caxis = 1 if data_format == "NCHW" else x.ndim - 1
        shape = [1] * x.ndim
        shape[caxis] = -1
        a = xp.reshape(alpha, tuple(shape))
        axes = tuple(i for i in range(x.ndim) if i != caxis)
    elif mode == "element":
        a = xp.reshape(alpha, (1, *x.shape[1:]))
        axes = (0,)
    else:
        a = xp.reshape(alpha, (-1,))[0]
        axes = tuple(range(x.ndim))
    pos = x > 0
    with quiet(xp):
        dx = xp.where(pos, out_grad, a * out_grad)
        da = xp.sum(xp.where(pos, x.dtype.type(0), x * out_grad), axis=axes)
    return xp.asarray(dx, dtype=x.dtype), xp.reshape(da, alpha.shape).astype(alpha.dtype)
