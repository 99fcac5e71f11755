"""The ``reshape``, ``reshape_grad`` and ``reshape_infer`` kernels."""

from __future__ import annotations

import functools


from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.layout import DataLayout
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import reshape_out_dims
from phi.kernels.funcs import ALL_DTYPES, owned
from phi.kernels.funcs.backward import grad_kernel
from phi.kernels.funcs.manipulation import RESHAPE_DTYPES, bind_dims_copy

__all__ = ["reshape", "reshape_infer"]


@register_kernel("reshape_infer", ("CPU", "GPU"), dtypes=RESHAPE_DTYPES)
def reshape_infer(ctx, x: Tensor, shape: IntArray) -> Tensor:
    """x with dims from ``shape`` (0 copies x's dim, one -1 is inferred), as a copy."""
    dims = _reshape_dims(x.shape, tuple(shape.data))
    return ctx.xp.reshape(x, dims, copy=True)


# the dims of a reshape / the normalized perm of a transpose, per (dims, attribute): programs
# repeat the same few on every run (errors are raised, never kept)
_reshape_dims = functools.lru_cache(maxsize=1024)(reshape_out_dims)


# Paddle 2.6.2's `reshape` kernel also writes XShape ([0, *x.dims], metadata without data):
# the legacy reshape2 op's signature names both outputs.  XShape never moves between devices.
@register_kernel("reshape", ("CPU", "GPU"), dtypes=RESHAPE_DTYPES,
                 output_defs={1: {"backend": Backend.ALL_BACKEND}})
def reshape(ctx, x: Tensor, shape: IntArray) -> tuple[Tensor, Tensor]:
    """(x reshaped as ``reshape_infer``, an empty XShape of dims [0, *x.dims])."""
    out = reshape_infer(ctx, x, shape)
    return out, ctx.xp.empty((0, *tuple(x.shape)), dtype=x.dtype)


bind_dims_copy(reshape, lambda dims, shape: _reshape_dims(dims, tuple(shape.data)))


_ANY = {"dtype": DataType.ALL_DTYPE}
ALL12 = list(ALL_DTYPES)


# Paddle also registers the view-like grads for the STRIDED layout (every dtype)
STRIDED = DataLayout.STRIDED


# -- shape ops: the gradient is the output gradient with x's dims ------------------------------

@grad_kernel("reshape_grad", ("CPU", "GPU"), dtypes=ALL12)
@grad_kernel("reshape_grad", ("CPU", "GPU"), dtypes=ALL12, layout=STRIDED)
def reshape_grad(ctx, out_grad: Tensor) -> Tensor:
    """out_grad as it is: X@GRAD takes XShape's dims in the op (Paddle's grad InferShape)."""
    return owned(ctx.xp, out_grad)
