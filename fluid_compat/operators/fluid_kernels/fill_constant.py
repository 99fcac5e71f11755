"""The expected kernel type hook of fill_constant."""

from __future__ import annotations

from fluid_compat.framework.op_kernel_type import OpKernelType
from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.expected_kernel import note
from phi.common.data_type import DataType
from phi.common.place import CPUPlace, GPUPlace

__all__: list[str] = []


def _fill_constant_expected(op, ctx) -> OpKernelType:
    """FillConstantOp: dtype from ``dtype``; ``force_cpu`` or ``place_type`` pick the place."""
    dtype = DataType.from_proto(op.attrs["dtype"])
    note(ctx, f"dtype {dtype} from attribute `dtype`={op.attrs['dtype']}")
    place = ctx.place
    place_type = op.attrs.get("place_type", -1)
    if op.attrs.get("force_cpu"):
        place = CPUPlace()
        note(ctx, "force_cpu=true: CPU place")
    elif place_type == 0:
        place = CPUPlace()
        note(ctx, "place_type=0: CPU place")
    elif place_type in (1, 2) and place.device_type != "gpu":
        place = GPUPlace(0)
        note(ctx, f"place_type={place_type}: GPU place")
    return OpKernelType(dtype, place)


op_hooks("fill_constant", get_expected_kernel_type=_fill_constant_expected)

