"""The ``uniform_inplace`` and ``uniform_inplace_grad`` kernels."""

from __future__ import annotations



from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import grad_kernel, zeros_like_grad
from phi.kernels.funcs.cpu_random import engine_for, uniform_real

__all__ = ["uniform_inplace"]


_FLOATS = ["float32", "float64"]


@register_kernel("uniform_inplace", "CPU", dtypes=_FLOATS)
def uniform_inplace(ctx, x: Tensor, min: float, max: float, seed: int, diag_num: int,
                    diag_step: int, diag_val: float) -> Tensor:
    """x's shape and dtype filled with U(min, max) (diag_* unused on CPU, as in Paddle)."""
    return uniform_real(engine_for(seed), x.size, min, max, x.dtype).reshape(x.shape)


@grad_kernel("uniform_inplace_grad", ("CPU", "GPU"), dtypes=["float32", "float64"])
def uniform_inplace_grad(ctx, out_grad: Tensor, min: float, max: float, seed: int,
                         diag_num: int, diag_step: int, diag_val: float) -> Tensor:
    """Zeros: the random output does not depend on x."""
    return zeros_like_grad(ctx, out_grad)
