"""The expected kernel type hook of unique."""

from __future__ import annotations

from fluid_compat.framework.op_kernel_type import OpKernelType
from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.expected_kernel import indicate_var_data_type, note
from phi.common.place import CPUPlace

__all__: list[str] = []


def _unique_expected(op, ctx) -> OpKernelType:
    """UniqueOp: X's dtype; on the CPU without ``is_sorted`` (the old fluid unique)."""
    dtype = indicate_var_data_type(op, ctx, "X")
    if not op.attrs.get("is_sorted"):
        note(ctx, "is_sorted=false: CPU place")
        return OpKernelType(dtype, CPUPlace())
    return OpKernelType(dtype, ctx.place)


op_hooks("unique", get_expected_kernel_type=_unique_expected)

