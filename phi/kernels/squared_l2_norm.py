"""The ``squared_l2_norm`` and ``squared_l2_norm_grad`` kernels."""

from __future__ import annotations



from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import (as_array, quiet)

__all__ = ["squared_l2_norm"]


FLOAT_DTYPES = ["float32", "float64"]


@register_kernel("squared_l2_norm", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def squared_l2_norm(ctx, x: Tensor) -> Tensor:
    """sum(x * x) over every element, shaped [1] (0 for an empty x)."""
    xp = ctx.xp
    with quiet(xp):
        return xp.reshape(xp.sum(x * x), (1,))


_F = ["float32", "float64"]


@register_kernel("squared_l2_norm_grad", ("CPU", "GPU"), dtypes=_F)
def squared_l2_norm_grad(ctx, x: Tensor, out_grad: Tensor) -> Tensor:
    """2 * x * dout (dout holds one value)."""
    xp = ctx.xp
    with quiet(xp):
        return as_array(xp, x.dtype.type(2) * x * xp.reshape(out_grad, ()))
