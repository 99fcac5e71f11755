"""The ``scatter_nd_add`` and ``scatter_nd_add_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import OutOfRange
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import grad_kernel
from phi.kernels.funcs.indexing import check_scatter_range, reduce_into, to_device, to_host
from phi.kernels.gather_nd import gather_nd

__all__ = ["scatter_nd_add"]


ALONG_DTYPES = ["float32", "float64", "int32", "int64", "uint8"]


_ANY = {"dtype": DataType.ALL_DTYPE}


@register_kernel("scatter_nd_add", ("CPU", "GPU"), dtypes=ALONG_DTYPES,
                 input_defs={"index": _ANY})
def scatter_nd_add(ctx, x: Tensor, index: Tensor, updates: Tensor) -> Tensor:
    """x with updates added at the coordinates index[..., :] (slices of the remaining dims),
    in index order."""
    h_x, h_index, h_upd = to_host(ctx, x), to_host(ctx, index), to_host(ctx, updates)
    out = np.array(h_x, copy=True)
    depth = h_index.shape[-1] if h_index.ndim else 0
    n = int(np.prod(h_index.shape[:-1], dtype=np.int64)) if h_index.ndim else 1
    if n == 0 or (h_index.size == 0 and depth):
        return to_device(ctx, out)
    coords = h_index.reshape(n, depth).astype(np.int64)
    for j in range(depth):
        size = h_x.shape[j]
        check_scatter_range(coords[:, j], 0, size, lambda bad, size=size: OutOfRange(
            "The index is out of bounds, please check whether the dimensions of index and input "
            f"meet the requirements. It should be less than [{size}] and greater or equal to 0, "
            f"but received [{bad}]"))
    flat = np.ravel_multi_index(coords.T, h_x.shape[:depth]) if depth else np.zeros(n, np.int64)
    view = out.reshape((-1, *h_x.shape[depth:]))
    reduce_into(ctx, view, flat, h_upd.reshape((n, *h_x.shape[depth:])), "add")
    return to_device(ctx, out)


@grad_kernel("scatter_nd_add_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "uint8"],
                 input_defs={"index": _ANY})
def scatter_nd_add_grad(ctx, index: Tensor, updates: Tensor, out_grad: Tensor
                        ) -> tuple[Tensor, Tensor]:
    """(out_grad, out_grad gathered at index: updates' gradient)."""
    xp = ctx.xp
    return (xp.asarray(out_grad, copy=True),
            xp.reshape(gather_nd(ctx, out_grad, index), updates.shape))
