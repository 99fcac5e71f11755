"""The ``frobenius_norm`` and ``frobenius_norm_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import reduce_axes
from phi.kernels.funcs import (as_array, quiet)
from phi.kernels.funcs.reduce import broadcast_back, reduced_axes

__all__ = ["frobenius_norm"]


FLOAT_DTYPES = ["float32", "float64"]


@register_kernel("frobenius_norm", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def frobenius_norm(ctx, x: Tensor, axis: IntArray, keepdim: bool, reduce_all: bool) -> Tensor:
    """sqrt(sum(x * x)) over ``axis``."""
    xp = ctx.xp
    axes = reduce_axes(x.shape, axis.data, reduce_all)
    with quiet(xp):
        return as_array(xp, xp.sqrt(xp.sum(x * x, axis=axes, keepdims=keepdim)))


_F = ["float32", "float64"]


# -- norms -------------------------------------------------------------------------------------

@register_kernel("frobenius_norm_grad", ("CPU", "GPU"), dtypes=_F)
def frobenius_norm_grad(ctx, x: Tensor, out: Tensor, out_grad: Tensor, dim: IntArray,
                        keep_dim: bool, reduce_all: bool) -> Tensor:
    """x / (out + 1e-12f) * dout (the epsilon keeps an all-zero x's gradient 0)."""
    xp = ctx.xp
    axes = reduced_axes(x, dim, reduce_all)
    eps = x.dtype.type(np.float32(1e-12))
    with quiet(xp):
        return as_array(xp, x / (broadcast_back(xp, out, x, axes) + eps)
                        * broadcast_back(xp, out_grad, x, axes))
