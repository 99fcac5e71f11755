"""The expected kernel type hook of bincount."""

from __future__ import annotations

from fluid_compat.framework.op_kernel_type import OpKernelType
from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.expected_kernel import indicate_var_data_type

__all__: list[str] = []


def _bincount_expected(op, ctx) -> OpKernelType:
    """BincountOp: the dtype of Weights when given, else of X."""
    slot = "Weights" if op.inputs.get("Weights") else "X"
    return OpKernelType(indicate_var_data_type(op, ctx, slot), ctx.place)


op_hooks("bincount", get_expected_kernel_type=_bincount_expected)

