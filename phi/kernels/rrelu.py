"""The ``rrelu`` and ``rrelu_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi import flags
from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, half_op, quiet, to_half
from phi.kernels.funcs.backward import grad_kernel
from phi.kernels.funcs.common import on_device

__all__ = ["rrelu"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
F = ["float32", "float64"]
HALF = (DataType.FLOAT16, DataType.BFLOAT16)


def _rng(seed: int = 0) -> np.random.Generator:
    """The op's seed when non-zero, else FLAGS_random_op_seed when non-zero, else entropy."""
    seed = seed or flags.FLAGS["FLAGS_random_op_seed"]
    return np.random.default_rng(seed if seed else None)


# -- rrelu --------------------------------------------------------------------------------------

@register_kernel("rrelu", ("CPU", "GPU"), dtypes=["float16", *F])
def rrelu(ctx, x: Tensor, lower: float, upper: float, is_test: bool) -> tuple[Tensor, Tensor]:
    """x < 0 ? a * x : x with noise = a (else 1): a = (lower + upper) / 2 in test mode, a draw
    of U(lower, upper) per negative element in training (NaN and -0.0 pass through)."""
    xp = ctx.xp
    dtype = ctx.data_type(x)
    neg = x < 0
    if is_test:
        a = np.float32((np.float32(lower) + np.float32(upper)) / np.float32(2))
        a = np.full(tuple(x.shape), a, dtype=np.float32)
    else:
        # std::uniform_real_distribution<float>(lower, upper), one draw per negative element
        a = _rng().uniform(np.float32(lower), np.float32(upper), tuple(x.shape))
        a = a.astype(np.float32)
    a = on_device(ctx, a)
    if dtype in HALF:
        a = to_half(ctx, a, dtype)
        scaled = half_op(ctx, lambda s, v: s * v, a, x)
    else:
        a = a.astype(x.dtype)
        with quiet(xp):
            scaled = a * x
    one = xp.ones((), dtype=x.dtype)
    return as_array(xp, xp.where(neg, scaled, x)), as_array(xp, xp.where(neg, a, one))


@grad_kernel("rrelu_grad", ("CPU", "GPU"), dtypes=["float32", "float64"])
def rrelu_grad(ctx, x: Tensor, noise: Tensor, out_grad: Tensor) -> Tensor:
    """out_grad where x > 0, out_grad * noise elsewhere."""
    xp = ctx.xp
    return xp.where(x > 0, out_grad, noise * out_grad)
