"""Grad ops of the shape / data-movement family whose outputs take, after the phi kernel, what
Paddle's grad InferShape gives them and the kernel cannot know: reshape2_grad's X@GRAD dims
(XShape's), set_value_grad's ValueTensor@GRAD dims (ValueTensor's), concat_grad's per-input
LoDs, multiplex_grad's X@GRAD (as many as the op names)."""

from __future__ import annotations

import numpy as np

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.with_kernel import OperatorWithKernel
from phi.core.tensor import DenseTensor

__all__: list[str] = []


class _FixedGradOp(OperatorWithKernel):
    """A grad op whose outputs take what Paddle's grad InferShape gives them after the kernel
    (`_FIX` by op type)."""

    def compute(self, choice, inputs, scope):
        from phi.kernels.funcs.backward import typed_errors

        staged = super().compute(choice, inputs, scope)
        typed_errors(self.type, _FIX[self.type])(self, inputs, staged)
        return staged


def _x_dims_from_xshape(op, inputs, staged) -> None:
    """reshape2_grad: X@GRAD's dims are XShape's without the leading 0."""
    xshape = (inputs.get("XShape") or (None,))[0]
    for t in staged.get("X@GRAD") or ():
        if t is not None and xshape is not None:
            t.data = t.data.reshape(tuple(xshape.data.shape[1:]))


def _each_x_lod(op, inputs, staged) -> None:
    """concat_grad: X@GRAD[i] has X[i]'s LoD (UnchangedMultiInferMeta)."""
    for x, g in zip(inputs.get("X") or (), staged.get("X@GRAD") or (), strict=False):
        if x is not None and g is not None and not g.lod:
            g.lod = x.lod


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


_FIX = {"multiplex_grad": _multiplex, "reshape2_grad": _x_dims_from_xshape,
        "concat_grad": _each_x_lod, "set_value_grad": _value_dims}
for _op in _FIX:
    op_hooks(_op, operator_class=_FixedGradOp)
