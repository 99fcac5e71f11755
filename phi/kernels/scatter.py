"""The scatter kernel and its grad (Paddle's paddle/phi/kernels/cpu/scatter_kernel.cc,
scatter_grad_kernel.cc, funcs/scatter.h).

Paddle's CPU scatter kernels loop over the index in order, so duplicates reduce in index order:
``reduce_into`` (phi.kernels.funcs.indexing, shared with index_add, put_along_axis ...) replays
that loop (numpy's ``ufunc.at`` is sequential; float16 goes through
``half_op`` per addition, and max / min keep Paddle's ``src > self ? src : self`` on NaN).
Out-of-range indices raise the errors Paddle raises; where Paddle's kernel would read or write
outside the tensor without a check, an InvalidArgument is raised instead (**deviation**).
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, OutOfRange
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import grad_kernel
from phi.kernels.funcs.indexing import (check_scatter_range, flat_index, reduce_into, to_device,
                                        to_host)

__all__ = ["scatter"]


FIIL = ["float32", "float64", "int32", "int64"]


_ANY = {"dtype": DataType.ALL_DTYPE}


# -- scatter / scatter_nd_add -----------------------------------------------------------------

def _scatter_oob(size: int):
    def make(bad: int) -> OutOfRange:
        if bad < 0:
            return OutOfRange("The index is out of bounds, please check whether the dimensions "
                              "of index and input meet the requirements. It should be greater "
                              f"than or equal to 0, but received [{bad}]")
        return OutOfRange("The index is out of bounds, please check whether the values of index "
                          "and dimensions of input meet the requirements. each index should be "
                          f"less than 1st-dim size ({size}) of input, but received [{bad}]")
    return make


@register_kernel("scatter", ("CPU", "GPU"), dtypes=FIIL, input_defs={"index": _ANY})
def scatter(ctx, x: Tensor, index: Tensor, updates: Tensor, overwrite: bool) -> Tensor:
    """x with rows ``index`` replaced by updates' rows (last duplicate wins); without
    ``overwrite`` the indexed rows are zeroed first, then every update is added in order."""
    h_x, h_index, h_upd = to_host(ctx, x), to_host(ctx, index), to_host(ctx, updates)
    out = np.array(h_x, copy=True)
    if h_index.size == 0 or out.size == 0:
        return to_device(ctx, out)
    if h_index.dtype not in (np.int32, np.int64):
        raise InvalidArgument(f"Index holds the wrong type, it holds [{h_index.dtype}],but "
                              "desires to be [int32] or [int64].")
    if not (h_index.ndim <= 1 or (h_index.ndim == 2 and h_index.shape[1] == 1)):
        raise InvalidArgument("index.dims().size() should be 0, 1 or 2 in scatter_op. But "
                              f"received value is [{h_index.ndim}]")
    flat = h_index.reshape(-1).astype(np.int64)
    check_scatter_range(flat, 0, out.shape[0], _scatter_oob(out.shape[0]))
    src = h_upd.reshape((1, *h_upd.shape)) if h_index.ndim == 0 else h_upd
    if src.shape[1:] != out.shape[1:] or src.shape[0] < flat.size:
        raise InvalidArgument(f"scatter: Input(Updates) {list(h_upd.shape)} does not match "
                              f"Input(X) {list(out.shape)} and {flat.size} indices.")
    if overwrite:
        reduce_into(ctx, out, flat, src[:flat.size], "assign")
    else:
        out[flat] = 0
        reduce_into(ctx, out, flat, src[:flat.size], "add")
    return to_device(ctx, out)


_FIIL = ["float32", "float64", "int32", "int64"]


# -- scatters: the gradient passes to x where nothing was written --------------------------------

@grad_kernel("scatter_grad", ("CPU", "GPU"), dtypes=_FIIL, input_defs={"index": _ANY})
def scatter_grad(ctx, index: Tensor, updates: Tensor, out_grad: Tensor, overwrite: bool
                 ) -> tuple[Tensor, Tensor]:
    """(out_grad with the written rows zeroed, out_grad's rows at index)."""
    xp = ctx.xp
    idx = flat_index(ctx, index)
    x_grad = xp.asarray(out_grad, copy=True)
    x_grad[idx] = 0
    return x_grad, xp.reshape(out_grad[idx], updates.shape)
