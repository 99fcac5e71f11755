"""The ``logspace`` kernel."""

from __future__ import annotations

import math

import numpy as np

from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import cast_array
from phi.kernels.funcs.manipulation import LOGSPACE_DTYPES

__all__ = ["logspace"]


def _host_scalar(ctx, t):
    return np.asarray(ctx.to_host(t)).reshape(-1)[0]


@register_kernel("logspace", ("CPU", "GPU"), dtypes=LOGSPACE_DTYPES,
                 input_defs={n: {"dtype": DataType.ALL_DTYPE, "backend": Backend.ALL_BACKEND}
                             for n in ("start", "stop", "number", "base")})
def logspace(ctx, start: Tensor, stop: Tensor, number: Tensor, base: Tensor,
             dtype: DataType) -> Tensor:
    """base ** (``number`` evenly spaced exponents from start to stop): start, stop and base
    cast to ``dtype`` first, powers in double, the first half counted up from start, the rest
    down from stop (Paddle's loop), each static_cast to ``dtype``."""
    s, e, b = (_host_scalar(ctx, cast_array(ctx, ctx.asarray(t), dtype))
               for t in (start, stop, base))
    num = int(_host_scalar(ctx, number))
    if num <= 0:
        raise InvalidArgument(f"The num of logspace op should be larger than 0, but received "
                              f"num is {num}")
    if num == 1:
        raw = [_c_pow(b, s)]
    else:
        step = float(e - s) / (num - 1)
        half = num // 2
        raw = [_c_pow(b, float(s) + step * i if i < half else float(e) - step * (num - i - 1))
               for i in range(num)]
    return cast_array(ctx, ctx.asarray(np.asarray(raw, np.float64)), dtype)


def _c_pow(b, e) -> float:
    """std::pow in double (math.pow is C's pow; its errors are C's inf / NaN results)."""
    try:
        return math.pow(float(b), float(e))
    except (OverflowError, ValueError):
        with np.errstate(all="ignore"):
            return float(np.power(np.float64(b), np.float64(e)))
