"""The expected kernel type hook of imag_grad."""

from __future__ import annotations

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.fluid_kernels.funcs import complex_of_out_grad

__all__: list[str] = []


op_hooks("imag_grad", get_expected_kernel_type=complex_of_out_grad)

