"""The ``poisson`` and ``poisson_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import grad_kernel, zeros_like_grad
from phi.kernels.funcs.cpu_random import engine_for

__all__ = ["poisson"]


_FLOATS = ["float32", "float64"]


@register_kernel("poisson", "CPU", dtypes=_FLOATS)
def poisson(ctx, x: Tensor) -> Tensor:
    """Poisson(x) per element, in x's dtype."""
    if x.size and np.nanmin(x) < 0:
        raise InvalidArgument("poisson: every rate in X must be >= 0.")
    rng = np.random.default_rng(int(engine_for(0).draw(1)[0]))
    return np.asarray(rng.poisson(x)).astype(x.dtype)


@grad_kernel("poisson_grad", ("CPU", "GPU"), dtypes=["float32", "float64"])
def poisson_grad(ctx, out_grad: Tensor) -> Tensor:
    """Zeros: Paddle treats the Poisson sample as independent of its rate."""
    return zeros_like_grad(ctx, out_grad)
