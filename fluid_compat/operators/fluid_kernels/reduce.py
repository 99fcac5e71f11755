"""The expected kernel type hook of frobenius_norm, reduce_max, reduce_mean, reduce_min,
reduce_prod, reduce_sum.
"""

from __future__ import annotations

from fluid_compat.framework.op_kernel_type import OpKernelType
from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.expected_kernel import indicate_var_data_type
from phi.common.data_type import DataType

__all__: list[str] = []


def _reduce_expected(op, ctx) -> OpKernelType:
    """GetReduceExpectedKernelType (reduce_sum / mean / max / min / prod, frobenius_norm): X's
    dtype; float16 only on GPU / XPU / custom places, so a CPU float16 reduction fails before
    any kernel lookup (checked with Paddle 2.6.2: conformance test_reduce)."""
    dtype = indicate_var_data_type(op, ctx, "X")
    if dtype is DataType.FLOAT16 and ctx.place.device_type == "cpu":
        from phi.core.errors import InvalidArgument

        where = "GPU or XPU" if op.type == "reduce_mean" else "GPU or NPU or XPU"
        raise InvalidArgument(f"float16 can only be used on {where} place")
    return OpKernelType(dtype, ctx.place)


for _op in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
            "frobenius_norm"):
    op_hooks(_op, get_expected_kernel_type=_reduce_expected)

