"""The ``logsumexp`` and ``logsumexp_grad`` kernels."""

from __future__ import annotations



from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import reduce_axes
from phi.kernels.funcs import (as_array, quiet)
from phi.kernels.funcs.reduce import broadcast_back, reduced_axes

__all__ = ["logsumexp"]


FLOAT_DTYPES = ["float32", "float64"]


# -- logsumexp / frobenius_norm / norm / squared_l2_norm / mean_all --------------------------------

@register_kernel("logsumexp", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def logsumexp(ctx, x: Tensor, axis: list[int], keepdim: bool, reduce_all: bool) -> Tensor:
    """log(sum(exp(x - max))) + max over ``axis``: a row holding +-inf or NaN gives NaN, as
    Paddle's (x - max) does (inf - inf)."""
    xp = ctx.xp
    axes = reduce_axes(x.shape, axis, reduce_all)
    if 0 in x.shape:
        raise InvalidArgument("logsumexp: The dims of Input(X) should be greater than 0, but "
                              f"received {list(x.shape)}.")
    with quiet(xp):
        top = xp.max(x, axis=axes, keepdims=True)
        out = xp.log(xp.sum(xp.exp(x - top), axis=axes, keepdims=True)) + top
    return as_array(xp, out if keepdim else xp.squeeze(out, axis=axes))


_F = ["float32", "float64"]


@register_kernel("logsumexp_grad", ("CPU", "GPU"), dtypes=_F)
def logsumexp_grad(ctx, x: Tensor, out: Tensor, out_grad: Tensor, axis: list[int],
                   keepdim: bool, reduce_all: bool) -> Tensor:
    """dout * exp(x - out)."""
    xp = ctx.xp
    axes = reduced_axes(x, axis, reduce_all)
    with quiet(xp):
        return as_array(xp, broadcast_back(xp, out_grad, x, axes)
                        * xp.exp(x - broadcast_back(xp, out, x, axes)))
