"""The ``index_add`` and ``index_add_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import grad_kernel
from phi.kernels.funcs.indexing import check_scatter_range, reduce_into, to_device, to_host
from phi.kernels.index_select import index_select

__all__ = ["index_add"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
INDEX_ADD_DTYPES = ["float16", "float32", "float64", "int32", "int64"]


_ANY = {"dtype": DataType.ALL_DTYPE}


# -- index_add / index_put / index_sample / masked_select --------------------------------------

@register_kernel("index_add", ("CPU", "GPU"), dtypes=INDEX_ADD_DTYPES, input_defs={"index": _ANY})
def index_add(ctx, x: Tensor, index: Tensor, add_value: Tensor, axis: int) -> Tensor:
    """x with add_value's slices added at ``index`` along ``axis`` (duplicates add up)."""
    h_x, h_index, h_value = to_host(ctx, x), to_host(ctx, index), to_host(ctx, add_value)
    ax = axis + x.ndim if axis < 0 else axis
    size = x.shape[ax]
    check_scatter_range(h_index, 0, size, lambda bad: InvalidArgument(
        f"Variable value (index) of OP(index_add) expected >= 0 and < {size}, but got {bad}. "
        "Please check input value."))
    out = np.array(h_x, copy=True)
    reduce_into(ctx, np.moveaxis(out, ax, 0), h_index.reshape(-1),
                 np.moveaxis(h_value, ax, 0), "add")
    return to_device(ctx, out)


@grad_kernel("index_add_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "float16"],
                 input_defs={"index": _ANY})
def index_add_grad(ctx, index: Tensor, add_value: Tensor, out_grad: Tensor, axis: int
                   ) -> tuple[Tensor, Tensor]:
    """(out_grad, out_grad's slices at index along ``axis``: add_value's gradient)."""
    xp = ctx.xp
    return xp.asarray(out_grad, copy=True), index_select(ctx, out_grad, index, axis)
