"""The ``exponential`` kernel."""

from __future__ import annotations


import numpy as np

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.cpu_random import engine_for, uniform_real

__all__ = ["exponential"]


_FLOATS = ["float32", "float64"]


@register_kernel("exponential", "CPU", dtypes=_FLOATS)
def exponential(ctx, x: Tensor, lam: float) -> Tensor:
    """Exp(lambda) of x's shape: -log(1 - u) / lambda."""
    u = uniform_real(engine_for(0), x.size, 0.0, 1.0, x.dtype).reshape(x.shape)
    return (-np.log1p(-u) / x.dtype.type(lam)).astype(x.dtype)
