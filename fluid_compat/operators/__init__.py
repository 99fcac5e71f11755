"""The legacy operator system: OperatorWithKernel, per-op hooks, fluid kernels, dispatch."""

from fluid_compat.operators import control_flow, fluid_kernels, ops  # noqa: F401
from fluid_compat.operators import tensor_array  # noqa: F401 - the tensor-array ops
from fluid_compat.operators import recurrent  # noqa: F401 - the StaticRNN op
