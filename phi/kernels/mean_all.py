"""The ``mean_all`` and ``mean_all_grad`` kernels."""

from __future__ import annotations

import math


from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import (COMPLEX, as_array, half_op, quiet,
                               to_half)
from phi.kernels.funcs.reduce import half_row_sums, mean_broadcast_back

__all__ = ["mean_all"]


MEAN_ALL_DTYPES = ["float32", "float64", "bfloat16", "complex64", "complex128"]


@register_kernel("mean_all", ("CPU", "GPU"), dtypes=MEAN_ALL_DTYPES)
def mean_all(ctx, x: Tensor) -> Tensor:
    """The mean of every element, 0-D (NaN for an empty x: Eigen's 0 / 0)."""
    xp = ctx.xp
    dtype = ctx.data_type(x)
    n = int(x.size)
    if dtype is DataType.BFLOAT16:
        # Eigen's MeanReducer in bfloat16 (stateful: no tree): a truncating sum in order, then
        # one truncating division by T(count), the count truncated too (2051 -> 2048:
        # Paddle-made cases hb_mean_*bf16)
        flat = ctx.astype(xp.reshape(x, (1, -1)), DataType.FLOAT32)
        total = to_half(ctx, half_row_sums(ctx, flat, dtype)[0], dtype)
        return half_op(ctx, lambda s, c: s / c, total, to_half(ctx, xp.asarray(n), dtype))
    with quiet(xp):
        # Eigen reduces phi::dtype::complex (no packet math) one element after another: the
        # sequential sum (numpy's pairwise sum differs in the last bit, and complex cases are
        # compared exactly); floats are vectorized in Paddle, any order is within tolerance
        flat = xp.reshape(x, (-1,))
        total = xp.cumsum(flat)[-1] if dtype in COMPLEX and n else xp.sum(flat)
        if dtype in COMPLEX:
            # std::complex<T>(total) / std::complex<T>(n): libgcc's __divsc3 / __divdc3 with
            # a zero imaginary part scale n by 2**-ilogb(n), then (part * c) / (c * c)
            t = x.real.dtype.type
            e = math.frexp(float(n))[1] - 1
            c = t(math.ldexp(float(n), -e))
            out = xp.empty((), dtype=x.dtype)
            out.real = xp.ldexp((xp.real(total) * c) / (c * c), -e)
            out.imag = xp.ldexp((xp.imag(total) * c) / (c * c), -e)
            return out
        return as_array(xp, total / ctx.asarray(n, dtype))


@register_kernel("mean_all_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "bfloat16",
                                                          "complex64", "complex128"])
def mean_all_grad(ctx, x: Tensor, out_grad: Tensor) -> Tensor:
    """dout / numel(x) for every element."""
    return mean_broadcast_back(ctx, x, out_grad, tuple(range(x.ndim)))
