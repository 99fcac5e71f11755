"""The ``fill_diagonal`` and ``fill_diagonal_grad`` kernels."""

from __future__ import annotations



from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import owned, scalar_as
from phi.kernels.funcs.backward import grad_kernel

__all__ = ["fill_diagonal"]


_F_I = ["float32", "float64", "int32", "int64"]


FILL_DIAGONAL_DTYPES = ["bool", "float16", *_F_I]


@register_kernel("fill_diagonal", ("CPU", "GPU"), dtypes=FILL_DIAGONAL_DTYPES)
def fill_diagonal(ctx, x: Tensor, value: float, offset: int, wrap: bool) -> Tensor:
    """x with ``value`` written every sum(strides) elements of the flat data from ``offset``
    (Paddle's walk: for 2-D x the diagonal, repeating below when ``wrap``)."""
    xp = ctx.xp
    out = owned(xp, x)
    if x.ndim < 2:
        raise InvalidArgument(f"fill_diagonal: Tensor dims should be >= 2, but received "
                              f"{x.ndim}.")
    flat = xp.reshape(out, (-1,))
    cols = x.shape[1]
    step = 0
    prod = 1
    for d in reversed(x.shape):  # CalStride: the flat distance between diagonal elements
        step += prod
        prod *= d
    size = flat.shape[0] if wrap else min(flat.shape[0], cols * cols)
    i = xp.arange(0, size, step) if step else xp.arange(0)
    keep = (i % cols + offset >= 0) & (i % cols + offset < cols)
    flat[i[keep] + offset] = scalar_as(ctx, float(value), ctx.data_type(x))
    return xp.reshape(flat, x.shape)


@grad_kernel("fill_diagonal_grad", ("CPU", "GPU"),
                 dtypes=["bool", "float32", "float64", "int32", "int64", "float16"])
def fill_diagonal_grad(ctx, out_grad: Tensor, value: float, offset: int, wrap: bool) -> Tensor:
    """out_grad with the filled diagonal zeroed."""
    return fill_diagonal(ctx, out_grad, 0.0, offset, wrap)
