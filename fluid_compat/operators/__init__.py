"""The legacy operator system: OperatorWithKernel, per-op hooks, fluid kernels, dispatch.

Importing it installs the operators into the framework's op registry (op_registry.
install_operators: OperatorWithKernel for the ops that name no operator class, the fluid
kernel modules loaded per op type) and declares every op's hooks."""

from fluid_compat.framework.op_registry import install_operators
from fluid_compat.operators.fluid_kernels.registry import ensure_loaded
from fluid_compat.operators.with_kernel import OperatorWithKernel

install_operators(OperatorWithKernel, ensure_loaded)

from fluid_compat.operators import control_flow, fluid_kernels, ops  # noqa: E402, F401
from fluid_compat.operators import tensor_array  # noqa: E402, F401 - the tensor-array ops
from fluid_compat.operators import recurrent  # noqa: E402, F401 - the StaticRNN op
