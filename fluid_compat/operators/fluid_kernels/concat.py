"""The operator class of concat_grad (a hook): what Paddle's grad InferShape gives
the outputs after the phi kernel (concat_grad: each X@GRAD takes its X's LoD)."""

from __future__ import annotations

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.fluid_kernels.funcs import FixedGradOp

__all__: list[str] = []


def _each_x_lod(op, inputs, staged) -> None:
    """concat_grad: X@GRAD[i] has X[i]'s LoD (UnchangedMultiInferMeta)."""
    for x, g in zip(inputs.get("X") or (), staged.get("X@GRAD") or (), strict=False):
        if x is not None and g is not None and not g.lod:
            g.lod = x.lod


class ConcatGradOp(FixedGradOp):
    fix = staticmethod(_each_x_lod)


op_hooks("concat_grad", operator_class=ConcatGradOp)
