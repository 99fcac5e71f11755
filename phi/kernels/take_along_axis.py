"""The ``take_along_axis`` and ``take_along_axis_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import adjoint, grad_kernel
from phi.kernels.funcs.indexing import along_positions, check_along, check_flat, to_device, to_host

__all__ = ["take_along_axis"]


ALONG_DTYPES = ["float32", "float64", "int32", "int64", "uint8"]


_ANY = {"dtype": DataType.ALL_DTYPE}


@register_kernel("take_along_axis", ("CPU", "GPU"), dtypes=ALONG_DTYPES,
                 input_defs={"index": _ANY})
def take_along_axis(ctx, x: Tensor, index: Tensor, axis: int) -> Tensor:
    """out[i][j][k] = x[i][index[i][j][k]][k] along ``axis`` (index's dims)."""
    h_x, h_index = to_host(ctx, x), to_host(ctx, index)
    ax = check_along(h_x, h_index, axis, "take_along_axis")
    if h_index.size == 0 or h_x.size == 0:
        return to_device(ctx, np.zeros(h_index.shape, h_x.dtype))
    src, _ = along_positions(h_index.shape, h_x.shape, ax, h_index.astype(np.int64))
    check_flat(src, h_x.size, "take_along_axis")
    return to_device(ctx, h_x.reshape(-1)[src].reshape(h_index.shape))


@grad_kernel("take_along_axis_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "uint8"],
                 input_defs={"index": _ANY})
def take_along_axis_grad(ctx, input: Tensor, index: Tensor, out_grad: Tensor,
                         axis: int) -> Tensor:
    """out_grad summed into the elements take_along_axis read."""
    return adjoint(ctx, input.shape, out_grad,
                   lambda ids: take_along_axis(ctx, ids, index, axis))
