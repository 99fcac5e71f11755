"""The ``linspace`` kernel."""

from __future__ import annotations


import numpy as np

from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import cast_array
from phi.kernels.funcs.creation import LINSPACE_DTYPES, host_scalar

__all__ = ["linspace"]


_HOST = {"dtype": DataType.ALL_DTYPE, "backend": Backend.ALL_BACKEND}


@register_kernel("linspace", ("CPU", "GPU"), dtypes=LINSPACE_DTYPES,
                 input_defs={"start": _HOST, "stop": _HOST, "number": _HOST})
def linspace(ctx, start: Tensor, stop: Tensor, number: Tensor, dtype: DataType) -> Tensor:
    """``number`` evenly spaced values from start to stop in ``dtype``: the first half counted
    up from start, the rest down from stop, with a double step (Paddle's loop)."""
    np_dtype = dtype.to_numpy()
    s = np.asarray(host_scalar(ctx, start)).astype(np_dtype)
    e = np.asarray(host_scalar(ctx, stop)).astype(np_dtype)
    num = int(host_scalar(ctx, number))
    if num <= 0:
        raise InvalidArgument(f"The num of linspace op should be larger than 0, but received "
                              f"num is {num}")
    if num == 1:
        values = np.array([s], np_dtype)
    else:
        with np.errstate(all="ignore"):
            step = float(e - s) / (num - 1)  # (double)(stop - start) / (num - 1)
            i = np.arange(num, dtype=np.float64)
            half = num // 2
            raw = np.where(i < half, float(s) + step * i, float(e) - step * (num - i - 1))
        return cast_array(ctx, raw if ctx.xp is np else ctx.from_host(raw), dtype)
    return ctx.from_host(values) if ctx.xp is not np else values
