"""The ``bincount`` kernel."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet

__all__ = ["bincount"]


_ANY_OUT = {0: {"dtype": DataType.UNDEFINED}}


_CUM_DTYPES = ["float32", "float64", "int32", "int64"]


@register_kernel("bincount", ("CPU", "GPU"), dtypes=_CUM_DTYPES,
                 input_defs={"x": {"dtype": DataType.ALL_DTYPE}}, output_defs=_ANY_OUT)
def bincount(ctx, x: Tensor, weights: Tensor | None, minlength: Scalar) -> Tensor:
    """Counts (int64) or summed ``weights`` (their dtype) per value of the non-negative x;
    length max(max(x) + 1, minlength)."""
    xp = ctx.xp
    if ctx.data_type(x) not in (DataType.INT32, DataType.INT64):
        raise InvalidArgument(f"bincount: Input(X) must be int32 or int64, but received "
                              f"{ctx.data_type(x)}.")
    ml = int(Scalar(minlength).value)
    if ml < 0:
        raise InvalidArgument(f"bincount: The minlength should be greater than or equal to 0, "
                              f"but the value received is {ml}.")
    flat = xp.reshape(x, (-1,))
    if flat.size and int(flat.min()) < 0:
        raise InvalidArgument(f"bincount: The elements in input tensor must be non-negative "
                              f"ints, but received {int(flat.min())}.")
    length = max(int(flat.max()) + 1 if flat.size else 0, ml)
    if weights is None:
        return xp.bincount(flat.astype(xp.int64), minlength=length).astype(xp.int64)[:length]
    w = xp.reshape(weights, (-1,))
    out = xp.zeros(length, dtype=weights.dtype)
    with quiet(xp):
        xp.add.at(out, flat.astype(xp.int64), w)
    return out
