"""Fluid (old-style) kernels: registration and the kernels themselves."""

from fluid_compat.operators.fluid_kernels import manipulation, math, nn  # noqa: F401 - registration
