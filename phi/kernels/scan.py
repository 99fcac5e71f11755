"""Scan kernels: cumsum (Paddle's paddle/phi/kernels/cpu/cum_kernel.cc)."""

from __future__ import annotations

from phi.common.scalar import Scalar
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet

__all__ = ["cumsum"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
CUMSUM_DTYPES = ["float32", "float64", "int16", "int32", "int64"]


@register_kernel("cumsum", ("CPU", "GPU"), dtypes=CUMSUM_DTYPES)
def cumsum(ctx, x: Tensor, axis: Scalar, flatten: bool, exclusive: bool,
           reverse: bool) -> Tensor:
    """Running sums in x's dtype along ``axis`` (of the flattened x with ``flatten``, giving
    [numel]); ``exclusive`` starts from 0 without the element itself, ``reverse`` from the end."""
    xp = ctx.xp
    if flatten:
        x = xp.reshape(x, (-1,))
        ax = 0
    elif x.ndim == 0:
        return xp.asarray(x, copy=True)
    else:
        ax = int(axis.value if isinstance(axis, Scalar) else axis) % x.ndim
    if reverse:
        x = xp.flip(x, axis=ax)
    with quiet(xp):
        out = xp.cumsum(x, axis=ax, dtype=x.dtype)
    if exclusive and x.shape[ax] > 0:
        # the sum of the elements before: shift by one and start from 0
        head = [slice(None)] * x.ndim
        head[ax] = slice(0, -1)
        zero_shape = list(x.shape)
        zero_shape[ax] = 1
        out = xp.concatenate([xp.zeros(tuple(zero_shape), dtype=x.dtype), out[tuple(head)]],
                             axis=ax)
    if reverse:
        out = xp.flip(out, axis=ax)
    return as_array(xp, out)
