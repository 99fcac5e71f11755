"""The ``masked_select`` and ``masked_select_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import adjoint, grad_kernel

__all__ = ["masked_select"]


FIIL = ["float32", "float64", "int32", "int64"]


@register_kernel("masked_select", ("CPU", "GPU"), dtypes=FIIL,
                 input_defs={"mask": {"dtype": DataType.BOOL}})
def masked_select(ctx, x: Tensor, mask: Tensor) -> Tensor:
    """x's elements where mask (broadcast to x's dims) is true, as a 1-D tensor."""
    xp = ctx.xp
    if tuple(mask.shape) != tuple(x.shape):
        try:
            shape = np.broadcast_shapes(tuple(x.shape), tuple(mask.shape))
        except ValueError as exc:
            raise InvalidArgument(f"masked_select: Input(Mask) {list(mask.shape)} does not "
                                  f"broadcast with Input(X) {list(x.shape)}.") from exc
        if shape != tuple(x.shape):
            raise InvalidArgument(
                "The dim size of input and mask in OP(masked_selected) must be equal, but got "
                f"input dim:({list(x.shape)}), mask dim: ({list(shape)}). Please check input "
                "value.")
        mask = xp.broadcast_to(mask, shape)
    return xp.asarray(x[mask], copy=True)


_FIIL = ["float32", "float64", "int32", "int64"]


@grad_kernel("masked_select_grad", ("CPU", "GPU"), dtypes=_FIIL,
                 input_defs={"mask": {"dtype": DataType.BOOL}})
def masked_select_grad(ctx, x: Tensor, mask: Tensor, out_grad: Tensor) -> Tensor:
    """out_grad put at the true elements of mask (broadcast to x's dims), zeros elsewhere."""
    return adjoint(ctx, x.shape, out_grad, lambda ids: masked_select(ctx, ids, mask))
