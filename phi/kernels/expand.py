"""The ``expand`` and ``expand_grad`` kernels."""

from __future__ import annotations



from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import expand_out_dims
from phi.kernels.funcs import ALL_DTYPES
from phi.kernels.funcs.backward import grad_kernel, reduce_grad_to
from phi.kernels.funcs.manipulation import broadcast

__all__ = ["expand"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json, ALL_LAYOUT keys)
EXPAND_DTYPES = ["float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool",
                 "float16", "bfloat16", "complex64", "complex128"]


@register_kernel("expand", ("CPU", "GPU"), dtypes=EXPAND_DTYPES)
def expand(ctx, x: Tensor, shape: IntArray) -> Tensor:
    """x broadcast to ``shape`` (-1 keeps x's size; new leading dims allowed)."""
    return broadcast(ctx.xp, x, expand_out_dims(x.shape, shape.data))


ALL12 = list(ALL_DTYPES)


# -- broadcasting ops: the gradient summed back ---------------------------------------------

@grad_kernel("expand_grad", ("CPU", "GPU"), dtypes=ALL12)
def expand_grad(ctx, x: Tensor, out_grad: Tensor, shape: IntArray) -> Tensor:
    """out_grad summed over the expanded dims to x's dims."""
    return reduce_grad_to(ctx, out_grad, x.shape)
