"""The ``index_put`` and ``index_put_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import ALL_DTYPES
from phi.kernels.funcs.backward import grad_kernel, reduce_grad_to
from phi.kernels.funcs.indexing import check_scatter_range, reduce_into, to_device, to_host

__all__ = ["index_put"]


ALL_12 = ["bfloat16", "bool", "complex128", "complex64", "float16", "float32", "float64",
          "int16", "int32", "int64", "int8", "uint8"]


_ANY = {"dtype": DataType.ALL_DTYPE}


@register_kernel("index_put", ("CPU", "GPU"), dtypes=ALL_12, input_defs={"indices": _ANY})
def index_put(ctx, x: Tensor, indices: list[Tensor], value: Tensor, accumulate: bool) -> Tensor:
    """x[indices] = value (``accumulate``: +=, duplicates add up), numpy's advanced indexing:
    bool indices select their nonzero positions, int indices broadcast, negative ones count
    from the end; value broadcasts to the selection."""
    h_x, h_value = to_host(ctx, x), to_host(ctx, value)
    ints = []
    for t in indices:
        h = to_host(ctx, t)
        if h.dtype == np.bool_:
            if h.ndim == 0:
                raise InvalidArgument("index_put: the bool tensor in indices should have at "
                                      "least one dimension.")
            ints.extend(np.nonzero(h))
        elif h.dtype in (np.int32, np.int64):
            ints.append(h.astype(np.int64))
        else:
            raise InvalidArgument("index_put: data type of tensor in indices must be int32, "
                                  f"int64 or bool, but received {h.dtype}.")
    if len(ints) > h_x.ndim:
        raise InvalidArgument(f"index_put: too many indices ({len(ints)}) for a tensor of "
                              f"rank {h_x.ndim}.")
    out = np.array(h_x, copy=True)
    if not ints or any(i.size == 0 for i in ints):
        return to_device(ctx, out)
    try:
        ints = np.broadcast_arrays(*ints)
    except ValueError as exc:
        raise InvalidArgument(f"index_put: indices do not broadcast together: {exc}") from exc
    fixed = []
    for d, i in enumerate(ints):
        size = h_x.shape[d]
        check_scatter_range(i, -size, size, lambda bad, d=d, size=size: InvalidArgument(
            f"index_put: index {bad} is out of bounds for axis {d} with size {size}."))
        fixed.append(np.where(i < 0, i + size, i).reshape(-1))
    sel_shape = (*ints[0].shape, *h_x.shape[len(ints):])
    try:
        vals = np.broadcast_to(h_value, sel_shape)
    except ValueError as exc:
        raise InvalidArgument(f"index_put: shape of value {list(h_value.shape)} can't be "
                              f"broadcast to shape of x[indices] {list(sel_shape)}.") from exc
    vals = vals.reshape((-1, *h_x.shape[len(ints):]))
    flat = np.ravel_multi_index(fixed, h_x.shape[:len(ints)])
    view = out.reshape((-1, *h_x.shape[len(ints):]))
    reduce_into(ctx, view, flat, vals, "add" if accumulate else "assign")
    return to_device(ctx, out)


ALL12 = list(ALL_DTYPES)


@grad_kernel("index_put_grad", ("CPU", "GPU"), dtypes=ALL12,
                 input_defs={"indices": _ANY})
def index_put_grad(ctx, x: Tensor, indices: list[Tensor], value: Tensor, out_grad: Tensor,
                   accumulate: bool) -> tuple[Tensor, Tensor]:
    """(out_grad, with the written elements zeroed unless ``accumulate``; out_grad at the
    indices summed down to value's dims)."""
    xp = ctx.xp
    where = tuple(np.asarray(i) if np.asarray(i).dtype == np.bool_
                  else np.asarray(i).astype(np.int64) for i in indices)
    x_grad = xp.asarray(out_grad, copy=True)
    if not accumulate:
        x_grad[where] = 0
    picked = out_grad[where]
    if value.size == 1:
        value_grad = xp.reshape(reduce_grad_to(ctx, xp.reshape(picked, (-1,)), (1,)), value.shape)
    else:
        value_grad = reduce_grad_to(ctx, picked, value.shape)
    return x_grad, value_grad
