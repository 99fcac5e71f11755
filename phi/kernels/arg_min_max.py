"""The ``argmax`` and ``argmin`` kernels."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["argmax", "argmin"]


ARG_DTYPES = ["float32", "float64", "int16", "int32", "int64", "uint8"]


_INDEX_OUT = {0: {"dtype": DataType.UNDEFINED}}


def _arg_extreme(ctx, x, axis, keepdims: bool, flatten: bool, dtype: DataType, find_max: bool):
    xp = ctx.xp
    if dtype not in (DataType.UNDEFINED, DataType.INT32, DataType.INT64):
        raise InvalidArgument("The attribute of dtype in argmin/argmax must be [int32] or "
                              f"[int64], but received [{dtype}]")
    out_dtype = DataType.INT32 if dtype is DataType.INT32 else DataType.INT64
    if ctx.data_type(x) in (DataType.FLOAT32, DataType.FLOAT64):
        # a NaN never wins the comparison (Eigen's reducer): it counts as the other extreme
        x = xp.where(xp.isnan(x), -xp.inf if find_max else xp.inf, x)
    pick = xp.argmax if find_max else xp.argmin
    if flatten or x.ndim == 0:
        idx = pick(xp.reshape(x, (-1,)))
        shape = (1,) * x.ndim if keepdims else ()
        return ctx.astype(xp.reshape(idx, shape), out_dtype)
    axis = int(axis.value if isinstance(axis, Scalar) else axis)
    return ctx.astype(pick(x, axis=axis, keepdims=keepdims), out_dtype)


@register_kernel("argmax", ("CPU", "GPU"), dtypes=ARG_DTYPES, output_defs=_INDEX_OUT)
def argmax(ctx, x: Tensor, axis: Scalar, keepdims: bool, flatten: bool,
           dtype: DataType) -> Tensor:
    """Index of the first maximum along ``axis`` (of all elements with ``flatten``)."""
    return _arg_extreme(ctx, x, axis, keepdims, flatten, dtype, True)


@register_kernel("argmin", ("CPU", "GPU"), dtypes=ARG_DTYPES, output_defs=_INDEX_OUT)
def argmin(ctx, x: Tensor, axis: Scalar, keepdims: bool, flatten: bool,
           dtype: DataType) -> Tensor:
    """Index of the first minimum along ``axis`` (of all elements with ``flatten``)."""
    return _arg_extreme(ctx, x, axis, keepdims, flatten, dtype, False)
