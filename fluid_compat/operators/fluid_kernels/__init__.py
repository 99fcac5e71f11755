"""Fluid (old-style) kernels: registration and the kernels themselves."""

from fluid_compat.operators.fluid_kernels import (  # noqa: F401 - registration
    deprecated,
    losses,
    manipulation,
    math,
    nn,
)
