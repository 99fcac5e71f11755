"""The expected kernel type hook of cast."""

from __future__ import annotations

from fluid_compat.framework.op_kernel_type import OpKernelType
from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.expected_kernel import indicate_var_data_type

__all__: list[str] = []


def _cast_expected(op, ctx) -> OpKernelType:
    """CastOp::GetExpectedKernelType: the dtype of the tensor X holds, whatever ``in_dtype``
    says (the attribute only serves compile-time InferShape): a program whose in_dtype
    disagrees with what reaches the op still casts what it gets, as Paddle 2.6.2 does."""
    return OpKernelType(indicate_var_data_type(op, ctx, "X"), ctx.place)


op_hooks("cast", get_expected_kernel_type=_cast_expected)

