"""The legacy operator system: OperatorWithKernel, per-op hooks, fluid kernels, dispatch."""

from fluid_compat.operators import control_flow, fluid_kernels, grad_hooks, ops  # noqa: F401
