"""The cast kernel (Paddle's paddle/phi/kernels/cpu/cast_kernel.cc, cast_impl.h)."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.bound import binds
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import cast_array, plain_cast, quiet

__all__ = ["cast"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json); also the output dtypes that
# PD_VISIT_ALL_TYPES accepts
CAST_DTYPES = ["float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool",
               "float16", "bfloat16", "complex64", "complex128"]
_TARGETS = frozenset(DataType.from_any(d) for d in CAST_DTYPES)


@register_kernel("cast", ("CPU", "GPU"), dtypes=CAST_DTYPES,
                 output_defs={0: {"dtype": DataType.UNDEFINED}})
def cast(ctx, x: Tensor, dtype: DataType) -> Tensor:
    """static_cast of every element to ``dtype`` (see phi.kernels.funcs for NaN/inf/overflow)."""
    if dtype not in _TARGETS:
        raise InvalidArgument(
            f"cast: the output dtype {dtype} is not supported; expected one of "
            f"{', '.join(CAST_DTYPES)}."
        )
    return cast_array(ctx, x, dtype)


@binds(cast)
def _bind_cast(ctx, attrs, metas):
    """cast_array's path chosen once for the planned dtypes: a copy, or astype where the cast
    is plain (funcs.plain_cast; phi.core.bound); the other paths stay the kernel's."""
    (dtype,) = attrs
    if ctx.xp is not np or metas[0] is None or dtype not in _TARGETS:
        return None
    src = metas[0][0]
    if src is not dtype and not plain_cast(src, dtype):
        return None
    t, to = src.to_numpy(), dtype.to_numpy()
    nd = np.ndarray
    if src is dtype:
        def bound(x):
            if type(x) is nd and x.dtype is t:
                return np.asarray(x, copy=True)
            return cast(ctx, x, dtype)
    else:
        def bound(x):
            if type(x) is nd and x.dtype is t:
                with quiet(np):
                    return x.astype(to)
            return cast(ctx, x, dtype)
    return bound
