"""The ``kthvalue`` and ``kthvalue_grad`` kernels."""

from __future__ import annotations



from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import check_kth
from phi.kernels.funcs import (as_array, owned)
from phi.kernels.funcs.backward import grad_kernel
from phi.kernels.funcs.indexing import put_at, stable_order, stl_rows

__all__ = ["kthvalue"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
MINMAX_DTYPES = ["float32", "float64", "int32", "int64"]


_INDICES_OUT = {1: {"dtype": DataType.INT64}}


@register_kernel("kthvalue", ("CPU", "GPU"), dtypes=MINMAX_DTYPES, output_defs=_INDICES_OUT)
def kthvalue(ctx, x: Tensor, k: int, axis: int, keepdim: bool) -> tuple[Tensor, Tensor]:
    """(k-th smallest value, its index) along ``axis`` (NaN the largest); among equal values
    the index libstdc++'s nth_element / partial_sort leave at k - 1, as Paddle's kernel."""
    xp = ctx.xp
    check_kth(x.shape, k, axis)
    if x.ndim == 0:
        return owned(xp, x), xp.zeros((), dtype=xp.int64)
    axis = axis + x.ndim if axis < 0 else axis
    order = stable_order(xp, x, axis, False)
    # sorted=True only sorts the slots before k - 1 (after nth_element), never slot k - 1
    order = stl_rows(ctx, x, order, axis, False, k, True)
    idx = xp.take(order, [k - 1], axis=axis)
    out = xp.take_along_axis(x, idx, axis=axis)
    if not keepdim:
        out, idx = xp.squeeze(out, axis=axis), xp.squeeze(idx, axis=axis)
    return as_array(xp, out), ctx.astype(idx, DataType.INT64)


_ANY = {"dtype": DataType.ALL_DTYPE}


_SORT = ["float32", "float64", "int32", "int64"]


@grad_kernel("kthvalue_grad", ("CPU", "GPU"), dtypes=_SORT, input_defs={"indices": _ANY})
def kthvalue_grad(ctx, x: Tensor, indices: Tensor, out_grad: Tensor, k: int, axis: int,
                  keepdim: bool) -> Tensor:
    """out_grad put at the k-th value's index, zeros elsewhere."""
    return put_at(ctx, x, indices, out_grad, axis, keepdim, ones_0d=True)
