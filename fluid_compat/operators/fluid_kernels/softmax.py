"""The fluid kernels of softmax; the expected kernel type hook of softmax."""

from __future__ import annotations

from fluid_compat.framework.op_kernel_type import OpKernelType
from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.expected_kernel import indicate_var_data_type
from fluid_compat.operators.fluid_kernels.funcs import FLOATS
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument

__all__: list[str] = []


def _softmax_expected(op, ctx) -> OpKernelType:
    """GetSoftmaxExpectedKernelType: X's dtype; float16 only on GPU/XPU/custom places."""
    dtype = indicate_var_data_type(op, ctx, "X")
    if dtype is DataType.FLOAT16 and ctx.place.device_type == "cpu":
        from phi.core.errors import InvalidArgument

        raise InvalidArgument("float16 can only be used on GPU/XPU and custom place")
    return OpKernelType(dtype, ctx.place)


op_hooks("softmax", get_expected_kernel_type=_softmax_expected)


@register_fluid_kernel("softmax", "CPU", FLOATS)
class SoftmaxKernel(FluidKernel):
    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        if x.ndim == 0:
            ctx.set_output("Out", xp.ones_like(x))
            return
        axis = ctx.attr("axis")
        if not -x.ndim <= axis < x.ndim:
            raise InvalidArgument(f"softmax: axis {axis} out of range for a {x.ndim}-D input.")
        shifted = x - xp.max(x, axis=axis, keepdims=True)
        e = xp.exp(shifted)
        ctx.set_output("Out", e / xp.sum(e, axis=axis, keepdims=True))

