"""The ``log_softmax`` and ``log_softmax_grad`` kernels."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, owned, quiet
from phi.kernels.funcs.softmax import positive_axis

__all__ = ["log_softmax"]


LOG_SOFTMAX_DTYPES = ["float32", "float64"]


@register_kernel("log_softmax", ("CPU", "GPU"), dtypes=LOG_SOFTMAX_DTYPES)
def log_softmax(ctx, x: Tensor, axis: int) -> Tensor:
    """(x - max) - log(sum(exp(x - max))) along ``axis``, the shifted logits clipped at -64 as
    Paddle's LogSoftmaxFunctor does (ValueClip: -inf gives -64 - log(sum), checked with the
    wheel); a 0-D input gives 0."""
    xp = ctx.xp
    if x.ndim == 0:
        return xp.zeros((), dtype=x.dtype)
    if x.size == 0:
        return owned(xp, x)
    axis = axis + x.ndim if axis < 0 else axis
    with quiet(xp):
        shifted = x - xp.max(x, axis=axis, keepdims=True)
        clip = x.dtype.type(-64.0)
        shifted = xp.where(shifted < clip, clip, shifted)  # NaN passes through
        return as_array(xp, shifted - xp.log(xp.sum(xp.exp(shifted), axis=axis,
                                                     keepdims=True)))


# Paddle 2.6.2 CPU registrations of the grad kernels (corpus phi_kernels.json)
FLOATS = ["float32", "float64"]


@register_kernel("log_softmax_grad", ("CPU", "GPU"), dtypes=FLOATS)
def log_softmax_grad(ctx, out: Tensor, out_grad: Tensor, axis: int) -> Tensor:
    """dout - exp(out) * sum(dout, axis); 0-D gives 0."""
    xp = ctx.xp
    if out.ndim == 0:
        return xp.zeros_like(out)
    with quiet(xp):
        total = xp.sum(out_grad, axis=positive_axis(axis, out.ndim), keepdims=True)
        return as_array(xp, out_grad - xp.exp(out) * total)
