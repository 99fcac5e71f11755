"""The ``argsort`` and ``argsort_grad`` kernels."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import grad_kernel
from phi.kernels.funcs.indexing import put_at, stable_order, stl_rows

__all__ = ["argsort"]


SORT_DTYPES = ["float32", "float64", "int32", "int64"]


_SORTED_OUTS = {1: {"dtype": DataType.INT64}}


@register_kernel("argsort", ("CPU", "GPU"), dtypes=SORT_DTYPES, output_defs=_SORTED_OUTS)
def argsort(ctx, x: Tensor, axis: int, descending: bool) -> tuple[Tensor, Tensor]:
    """(sorted values, int64 indices) along ``axis``."""
    xp = ctx.xp
    if x.ndim == 0:
        return xp.asarray(x, copy=True), xp.zeros((), dtype=xp.int64)
    axis = axis + x.ndim if axis < 0 else axis
    order = stable_order(xp, x, axis, descending)
    order = stl_rows(ctx, x, order, axis, descending, None, True)
    return xp.take_along_axis(x, order, axis=axis), ctx.astype(order, DataType.INT64)


_ANY = {"dtype": DataType.ALL_DTYPE}


_SORT = ["float32", "float64", "int32", "int64"]


@grad_kernel("argsort_grad", ("CPU", "GPU"), dtypes=_SORT, input_defs={"indices": _ANY})
def argsort_grad(ctx, indices: Tensor, x: Tensor, out_grad: Tensor, axis: int,
                 descending: bool) -> Tensor:
    """out_grad put back at the sorted positions."""
    return put_at(ctx, x, indices, out_grad, axis)
