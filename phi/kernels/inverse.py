"""The ``inverse`` and ``inverse_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import inverse_dims
from phi.kernels.funcs import quiet
from phi.kernels.funcs.linalg import conj_transpose, contiguous_as

__all__ = ["inverse"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


@register_kernel("inverse", ("CPU", "GPU"), dtypes=REAL)
def inverse(ctx, x: Tensor) -> Tensor:
    """The inverse of every matrix; a singular one raises as Paddle's ComputeInverseEigen."""
    inverse_dims(x.shape)
    try:
        return ctx.xp.linalg.inv(x).astype(x.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise InvalidArgument("inverse: Input is not invertible (a pivot of its LU "
                              "factorization is 0).") from None


_F = ["float32", "float64"]


@register_kernel("inverse_grad", ("CPU", "GPU"), dtypes=_F)
def inverse_grad(ctx, out: Tensor, out_grad: Tensor) -> Tensor:
    """dA = -Out^H dOut Out^H."""
    xp = ctx.xp
    with quiet(xp):
        inv_h = conj_transpose(xp, out)
        return contiguous_as(xp, -(inv_h @ out_grad @ inv_h), out.dtype)
