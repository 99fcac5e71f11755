"""The operator class of multiplex_grad (a hook): what Paddle's grad InferShape gives
the outputs after the phi kernel (multiplex_grad: one X@GRAD per name the op gives)."""

from __future__ import annotations

import numpy as np

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.fluid_kernels.funcs import FixedGradOp
from phi.core.tensor import DenseTensor

__all__: list[str] = []


def _multiplex(op, inputs, staged) -> None:
    """multiplex_grad: X@GRAD[i] = zeros with Out@GRAD's rows k where Ids[k] == i."""
    ids = inputs["Ids"][0].data.reshape(-1)
    dout = inputs["Out@GRAD"][0]
    grads = []
    for i, name in enumerate(op.outputs.get("X@GRAD", ())):
        if name == "@EMPTY@":
            grads.append(None)
            continue
        g = np.zeros_like(dout.data)
        g[ids == i] = dout.data[ids == i]
        grads.append(DenseTensor(g, dout.dtype, dout.place))
    staged["X@GRAD"] = grads


class MultiplexGradOp(FixedGradOp):
    fix = staticmethod(_multiplex)


op_hooks("multiplex_grad", operator_class=MultiplexGradOp)
