"""The ``gaussian_inplace`` and ``gaussian_inplace_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import grad_kernel, zeros_like_grad
from phi.kernels.funcs.common import on_device

__all__ = ["gaussian_inplace"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
F = ["float32", "float64"]


# -- gaussian_inplace ---------------------------------------------------------------------------

@register_kernel("gaussian_inplace", ("CPU", "GPU"), dtypes=F)
def gaussian_inplace(ctx, x: Tensor, mean: float, std: float, seed: int) -> Tensor:
    """x refilled with N(mean, std) draws in x's order, Paddle's CPU stream: one
    std::normal_distribution<T>(mean, std) (libstdc++'s Marsaglia polar method) over a fresh
    mt19937_64 seeded with ``seed``, or over the process-wide engine for seed 0
    (cpu_random.global_engine: paddle.seed(FLAGS_random_op_seed))."""
    from phi.kernels.funcs.cpu_random import MT19937_64, global_engine, normal

    engine = MT19937_64(seed) if seed else global_engine()
    out = normal(engine, int(np.prod(x.shape, dtype=np.int64)), mean, std, x.dtype)
    return on_device(ctx, out.reshape(tuple(x.shape)))


@grad_kernel("gaussian_inplace_grad", ("CPU", "GPU"), dtypes=["float32", "float64"])
def gaussian_inplace_grad(ctx, out_grad: Tensor, mean: float, std: float, seed: int) -> Tensor:
    """Zeros: the random output does not depend on x."""
    return zeros_like_grad(ctx, out_grad)
