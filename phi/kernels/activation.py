"""Activation kernels: relu, sigmoid, tanh, exp (Paddle's
paddle/phi/kernels/cpu/activation_kernel.cc, funcs/activation_functor.h)."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import INTEGERS, as_array, float_to_int, quiet

__all__ = ["exp", "relu", "sigmoid", "tanh"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json): relu has no float16 or int kernel
RELU_DTYPES = ["float32", "float64"]
SIGMOID_DTYPES = ["float32", "float64", "complex64", "complex128"]
TANH_DTYPES = ["float32", "float64", "complex64", "complex128"]
EXP_DTYPES = ["float32", "float64", "int32", "int64", "float16", "complex64", "complex128"]


@register_kernel("relu", ("CPU", "GPU"), dtypes=RELU_DTYPES)
def relu(ctx, x: Tensor) -> Tensor:
    """ReluCPUFunctor v > 0 ? v : 0: NaN gives 0 and -0.0 gives +0.0."""
    xp = ctx.xp
    zero = x.dtype.type(0)
    return xp.asarray(xp.where(x > zero, x, zero))


@register_kernel("sigmoid", ("CPU", "GPU"), dtypes=SIGMOID_DTYPES)
def sigmoid(ctx, x: Tensor) -> Tensor:
    """1 / (1 + exp(-x)) in x's dtype (SigmoidFunctor); exp overflow gives exactly 0."""
    xp = ctx.xp
    one = ctx.asarray(1, ctx.data_type(x))
    with quiet(xp):
        return as_array(xp, one / (one + xp.exp(-x)))


@register_kernel("tanh", ("CPU", "GPU"), dtypes=TANH_DTYPES)
def tanh(ctx, x: Tensor) -> Tensor:
    """tanh(x)."""
    with quiet(ctx.xp):
        return as_array(ctx.xp, ctx.xp.tanh(x))


@register_kernel("exp", ("CPU", "GPU"), dtypes=EXP_DTYPES)
def exp(ctx, x: Tensor) -> Tensor:
    """e**x; on int32/int64 Eigen calls std::exp(double) and truncates back to the int type."""
    xp = ctx.xp
    dtype = ctx.data_type(x)
    with quiet(xp):
        if dtype in INTEGERS:
            return float_to_int(ctx, xp.exp(ctx.astype(x, DataType.FLOAT64)), dtype)
        return as_array(xp, xp.exp(x))
