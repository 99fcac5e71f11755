"""The ``arange_tensor`` kernel."""

from __future__ import annotations

import math

import numpy as np

from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import INTEGERS
from phi.kernels.funcs.creation import ARANGE_DTYPES, host_scalar

__all__ = ["arange_tensor"]


_HOST = {"dtype": DataType.ALL_DTYPE, "backend": Backend.ALL_BACKEND}


@register_kernel("arange_tensor", ("CPU", "GPU"), dtypes=ARANGE_DTYPES,
                 input_defs={"start": _HOST, "end": _HOST, "step": _HOST})
def arange_tensor(ctx, start: Tensor, end: Tensor, step: Tensor) -> Tensor:
    """start, start + step, ... below end (above it for a negative step), accumulated in the
    dtype as Paddle's loop does (value += step)."""
    dtype = ctx.data_type(start)
    s, e, d = (host_scalar(ctx, t) for t in (start, end, step))
    if d == 0:
        raise InvalidArgument("The step of range op should not be 0.")
    if (s < e and d < 0) or (s > e and d > 0):
        raise InvalidArgument("The step should be greater than 0 while start < end. And the "
                              "step should be less than 0 while start > end.")
    if dtype in INTEGERS:
        size = (abs(int(e) - int(s)) + abs(int(d)) - 1) // abs(int(d))
        # exact in integers: start + i * step is what the loop's value += step reaches
        values = (np.arange(size, dtype=np.int64) * int(d) + int(s)).astype(
            np.asarray(s).dtype, copy=False)
        return ctx.from_host(values) if ctx.xp is not np else values
    else:
        size = math.ceil(abs((e - s) / d))
    steps = np.full(size, d, dtype=np.asarray(s).dtype)
    if size:
        steps[0] = s
    with np.errstate(all="ignore"):
        values = np.cumsum(steps, dtype=steps.dtype)
    return ctx.from_host(values) if ctx.xp is not np else values
