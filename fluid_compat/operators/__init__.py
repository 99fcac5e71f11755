"""The legacy operator system: OperatorWithKernel, per-op hooks, fluid kernels, dispatch."""

from fluid_compat.operators import control_flow, fluid_kernels, ops  # noqa: F401 - registration
from fluid_compat.operators import grad_manip_ops  # noqa: F401,E402 - grad ops' output dims
