"""Fluid (old-style) kernels: registration and the kernels themselves."""

from fluid_compat.operators.fluid_kernels import manipulation, math  # noqa: F401 - registration
