"""The output counts hook of multi_dot_grad."""

from __future__ import annotations

from fluid_compat.framework.op_registry import op_hooks

__all__: list[str] = []


def _per_x(attrs, inputs) -> dict:
    x = inputs.get("X")
    return {"X@GRAD": len(x) if isinstance(x, (list, tuple)) else 1}


# multi_dot_grad: one X@GRAD per operand (run_op builds the outputs from the inputs)
op_hooks("multi_dot_grad", output_counts=_per_x)

