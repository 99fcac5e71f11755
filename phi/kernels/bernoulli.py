"""The ``bernoulli`` kernel."""

from __future__ import annotations


import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.cpu_random import engine_for, uniform_real

__all__ = ["bernoulli"]


_FLOATS = ["float32", "float64"]


@register_kernel("bernoulli", "CPU", dtypes=_FLOATS)
def bernoulli(ctx, x: Tensor) -> Tensor:
    """1 with probability x, else 0 (u ~ U(0, 1) per element, 1 where u < x)."""
    if x.size and (np.nanmin(x) < 0 or np.nanmax(x) > 1):
        raise InvalidArgument("bernoulli: every probability in X must be in [0, 1].")
    u = uniform_real(engine_for(0), x.size, 0.0, 1.0, x.dtype).reshape(x.shape)
    return (u < x).astype(x.dtype)
