"""Expected kernel types of the grad ops whose kernel key is not their output gradient's dtype
(the default for grad ops: Paddle's generated ``data_type : out_grad``); each from the
expected_kernel_key Paddle printed for the op's grad cases (tests/fixtures/grad_ops)."""

from __future__ import annotations

from fluid_compat.framework.op_kernel_type import OpKernelType
from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.expected_kernel import expected_from_var, indicate_var_data_type
from phi.common.data_type import DataType

_TO_COMPLEX = {DataType.FLOAT32: DataType.COMPLEX64, DataType.FLOAT64: DataType.COMPLEX128}


def _complex_of_out_grad(op, ctx) -> OpKernelType:
    """real_grad / imag_grad: the complex type whose real part dout is (ToComplexType)."""
    dtype = indicate_var_data_type(op, ctx, "Out@GRAD")
    return OpKernelType(_TO_COMPLEX.get(dtype, dtype), ctx.place)


op_hooks("real_grad", get_expected_kernel_type=_complex_of_out_grad)
op_hooks("imag_grad", get_expected_kernel_type=_complex_of_out_grad)
op_hooks("complex_grad", get_expected_kernel_type=expected_from_var("X"))
