"""The ``expand_as`` and ``expand_as_grad`` kernels."""

from __future__ import annotations



from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import expand_out_dims
from phi.kernels.funcs.backward import grad_kernel, reduce_grad_to
from phi.kernels.funcs.manipulation import broadcast

__all__ = ["expand_as"]


EXPAND_AS_DTYPES = ["bool", "float32", "float64", "int32", "int64"]


_STAYS = {"backend": Backend.ALL_BACKEND}  # only the dims are read: never moved


@register_kernel("expand_as", ("CPU", "GPU"), dtypes=EXPAND_AS_DTYPES,
                 input_defs={"y": {"dtype": DataType.ALL_DTYPE, **_STAYS}})
def expand_as(ctx, x: Tensor, y: Tensor | None, target_shape: list[int]) -> Tensor:
    """x broadcast to y's dims (``target_shape`` without y)."""
    target = tuple(y.shape) if y is not None else tuple(target_shape)
    return broadcast(ctx.xp, x, expand_out_dims(x.shape, target, "expand_as_v2"))


@grad_kernel("expand_as_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "int32",
                                                           "int64"])
def expand_as_grad(ctx, x: Tensor, out_grad: Tensor, target_shape: list[int]) -> Tensor:
    """out_grad summed over the expanded dims to x's dims."""
    return reduce_grad_to(ctx, out_grad, x.shape)
