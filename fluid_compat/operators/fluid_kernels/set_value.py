"""The operator class of set_value_grad (a hook): what Paddle's grad InferShape gives
the outputs after the phi kernel (set_value_grad: ValueTensor@GRAD takes ValueTensor's dims)."""

from __future__ import annotations

import numpy as np

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.fluid_kernels.funcs import FixedGradOp

__all__: list[str] = []


def _value_dims(op, inputs, staged) -> None:
    """set_value_grad: ValueTensor@GRAD is the slice gradient summed down to ValueTensor's
    dims (the kernel's reduce over the broadcast dims)."""
    value = (inputs.get("ValueTensor") or (None,))[0]
    grads = staged.get("ValueTensor@GRAD") or ()
    if value is None or not grads or grads[0] is None:
        return
    g = grads[0]
    if g.data.ndim < value.data.ndim:
        g.data = g.data.reshape(value.data.shape)
    else:
        from phi.kernels.funcs.elementwise import reduce_to

        g.data = reduce_to(np, g.data, value.data.shape)


class SetValueGradOp(FixedGradOp):
    fix = staticmethod(_value_dims)


op_hooks("set_value_grad", operator_class=SetValueGradOp)
