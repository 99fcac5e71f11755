"""The expected kernel type hook of fill_any_like."""

from __future__ import annotations

from fluid_compat.framework.op_kernel_type import OpKernelType
from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.expected_kernel import indicate_var_data_type, note
from phi.common.data_type import DataType

__all__: list[str] = []


def _fill_any_like_expected(op, ctx) -> OpKernelType:
    """FillAnyLikeOp: ``dtype`` when set (-1: X's dtype)."""
    proto = op.attrs.get("dtype", -1)
    if proto is not None and proto >= 0:
        dtype = DataType.from_proto(proto)
        note(ctx, f"dtype {dtype} from attribute `dtype`={proto}")
    else:
        dtype = indicate_var_data_type(op, ctx, "X")
    return OpKernelType(dtype, ctx.place)


op_hooks("fill_any_like", get_expected_kernel_type=_fill_any_like_expected)

