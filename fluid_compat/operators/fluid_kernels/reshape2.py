"""The operator class of reshape2_grad (a hook): what Paddle's grad InferShape gives
the outputs after the phi kernel (reshape2_grad: X@GRAD takes XShape's dims)."""

from __future__ import annotations

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.fluid_kernels.funcs import FixedGradOp

__all__: list[str] = []


def _x_dims_from_xshape(op, inputs, staged) -> None:
    """reshape2_grad: X@GRAD's dims are XShape's without the leading 0."""
    xshape = (inputs.get("XShape") or (None,))[0]
    for t in staged.get("X@GRAD") or ():
        if t is not None and xshape is not None:
            t.data = t.data.reshape(tuple(xshape.data.shape[1:]))


class Reshape2GradOp(FixedGradOp):
    fix = staticmethod(_x_dims_from_xshape)


op_hooks("reshape2_grad", operator_class=Reshape2GradOp)
