"""The ``repeat_interleave``, ``repeat_interleave_grad``,
``repeat_interleave_with_tensor_index`` and ``repeat_interleave_with_tensor_index_grad``
kernels."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import adjoint, grad_kernel
from phi.kernels.funcs.indexing import to_host

__all__ = ["repeat_interleave", "repeat_interleave_with_tensor_index"]


REPEAT_DTYPES = ["bfloat16", "float32", "float64", "int32", "int64"]


_ANY = {"dtype": DataType.ALL_DTYPE}


# -- repeat_interleave ----------------------------------------------------------------------------

@register_kernel("repeat_interleave", ("CPU", "GPU"), dtypes=REPEAT_DTYPES)
def repeat_interleave(ctx, x: Tensor, repeats: int, dim: int) -> Tensor:
    """Each slice of x along ``dim`` repeated ``repeats`` times in place."""
    if repeats <= 0:
        raise InvalidArgument(f"repeats must grater than 0, but got {repeats}")
    ax = dim + x.ndim if dim < 0 else dim
    return ctx.xp.repeat(x, repeats, axis=ax)


@register_kernel("repeat_interleave_with_tensor_index", ("CPU", "GPU"), dtypes=REPEAT_DTYPES,
                 input_defs={"repeats": _ANY})
def repeat_interleave_with_tensor_index(ctx, x: Tensor, repeats: Tensor, dim: int) -> Tensor:
    """Slice i of x along ``dim`` repeated repeats[i] times."""
    ax = dim + x.ndim if dim < 0 else dim
    reps = to_host(ctx, repeats)
    if reps.dtype not in (np.int32, np.int64):
        raise InvalidArgument(f"Input(RepeatsTensor) holds the wrong type, it holds {reps.dtype},"
                              " but desires to be int32 or int64")
    reps = reps.reshape(-1)
    if reps.size != x.shape[ax]:
        raise InvalidArgument("The length of Input(RepeatsTensor) must be the same as length of "
                              f"Input(X) in axis. But received: [{reps.size}], required: "
                              f"[{x.shape[ax]}].")
    if reps.size and reps.min() < 0:
        raise InvalidArgument(f"repeats must grater or equal than 0, but got {int(reps.min())}")
    idx = np.repeat(np.arange(reps.size), reps)
    return ctx.xp.take(x, ctx.xp.asarray(idx), axis=ax)


# -- repeat_interleave: the copies' gradients summed --------------------------------------------

_REPEAT = ["float32", "float64", "int32", "int64", "bfloat16"]


@grad_kernel("repeat_interleave_grad", ("CPU", "GPU"), dtypes=_REPEAT)
def repeat_interleave_grad(ctx, x: Tensor, out_grad: Tensor, repeats: int, dim: int) -> Tensor:
    """The gradients of each slice's ``repeats`` copies summed."""
    return adjoint(ctx, x.shape, out_grad,
                   lambda ids: repeat_interleave(ctx, ids, repeats, dim))


@grad_kernel("repeat_interleave_with_tensor_index_grad", ("CPU", "GPU"), dtypes=_REPEAT,
                 input_defs={"repeats_tensor": _ANY})
def repeat_interleave_with_tensor_index_grad(ctx, x: Tensor, repeats_tensor: Tensor,
                                             out_grad: Tensor, dim: int) -> Tensor:
    """The gradients of slice i's repeats[i] copies summed."""
    return adjoint(ctx, x.shape, out_grad, lambda ids: repeat_interleave_with_tensor_index(
        ctx, ids, repeats_tensor, dim))
