"""Grad kernels of the indexing / sorting ops (Paddle's paddle/phi/kernels/cpu/*_grad_kernel.cc).

Gathers take their gradient back by scatter-adding it where they read (`adjoint`); scatters
pass the output gradient through to x except where they wrote, and gather it for the written
values; sorts and selections put the gradient at the indices their forward op returned.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Int64, Tensor
from phi.kernels import indexing, scatter
from phi.kernels.grad_manip import ALL12, _reduce_to, adjoint, grad_kernel, sum_into
from phi.kernels.scatter import _along_positions

__all__: list[str] = []

_ANY = {"dtype": DataType.ALL_DTYPE}
_FIIL = ["float32", "float64", "int32", "int64"]


def _flat_index(ctx, index):
    return np.asarray(index).reshape(-1).astype(np.int64)


# -- gathers: the gradient scatter-added back ---------------------------------------------------

@grad_kernel("gather_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "uint8", "bfloat16"],
                 input_defs={"index": _ANY})
def gather_grad(ctx, x: Tensor, index: Tensor, out_grad: Tensor, axis: Scalar) -> Tensor:
    """out_grad summed into the rows (along ``axis``) that gather read.  For an axis other
    than 0 Paddle's GatherV2GradFunction reads out_grad's first block (the elements before
    ``axis`` at 0) for every block: kept, its results are what programs got."""
    ax = int(axis)
    ax = ax + x.ndim if ax < 0 else ax
    if ax == 0:
        return adjoint(ctx, x.shape, out_grad,
                       lambda ids: indexing.gather(ctx, ids, index, axis))
    xp = ctx.xp
    idx = _flat_index(ctx, index)
    inner = int(np.prod(x.shape[:ax], dtype=np.int64))
    outer = int(np.prod(x.shape[ax + 1:], dtype=np.int64))
    first = xp.reshape(out_grad, (-1,))[: idx.size * outer]
    pos = (np.arange(inner)[:, None, None] * x.shape[ax] * outer
           + idx[None, :, None] * outer + np.arange(outer)[None, None, :])
    vals = xp.broadcast_to(xp.reshape(first, (1, idx.size, outer)), pos.shape)
    return xp.reshape(sum_into(ctx, x.size, pos, vals, out_grad), x.shape)


@grad_kernel("gather_nd_grad", ("CPU", "GPU"),
                 dtypes=["bool", "float32", "float64", "int8", "uint8", "int16", "int32",
                         "int64", "complex64", "complex128"], input_defs={"index": _ANY})
def gather_nd_grad(ctx, x: Tensor, index: Tensor, out_grad: Tensor) -> Tensor:
    """out_grad summed into the slices that gather_nd read."""
    return adjoint(ctx, x.shape, out_grad, lambda ids: indexing.gather_nd(ctx, ids, index))


@grad_kernel("index_select_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "bfloat16", "complex64",
                         "complex128"], input_defs={"index": _ANY})
def index_select_grad(ctx, x: Tensor, index: Tensor, out_grad: Tensor, dim: int) -> Tensor:
    """out_grad summed into the slices (along ``dim``) that index_select read."""
    return adjoint(ctx, x.shape, out_grad,
                   lambda ids: indexing.index_select(ctx, ids, index, dim))


@grad_kernel("index_sample_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "complex64", "complex128"],
                 input_defs={"index": _ANY})
def index_sample_grad(ctx, x: Tensor, index: Tensor, out_grad: Tensor) -> Tensor:
    """out_grad summed into the elements index_sample read in each row."""
    return adjoint(ctx, x.shape, out_grad, lambda ids: scatter.index_sample(ctx, ids, index))


@grad_kernel("take_along_axis_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "uint8"],
                 input_defs={"index": _ANY})
def take_along_axis_grad(ctx, input: Tensor, index: Tensor, out_grad: Tensor,
                         axis: int) -> Tensor:
    """out_grad summed into the elements take_along_axis read."""
    return adjoint(ctx, input.shape, out_grad,
                   lambda ids: scatter.take_along_axis(ctx, ids, index, axis))


@grad_kernel("masked_select_grad", ("CPU", "GPU"), dtypes=_FIIL,
                 input_defs={"mask": {"dtype": DataType.BOOL}})
def masked_select_grad(ctx, x: Tensor, mask: Tensor, out_grad: Tensor) -> Tensor:
    """out_grad put at the true elements of mask (broadcast to x's dims), zeros elsewhere."""
    return adjoint(ctx, x.shape, out_grad, lambda ids: scatter.masked_select(ctx, ids, mask))


@grad_kernel("embedding_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "float16", "bfloat16"],
                 input_defs={"x": _ANY})
def embedding_grad(ctx, x: Tensor, weight: Tensor, out_grad: Tensor, padding_idx: Int64
                   ) -> Tensor:
    """out_grad's rows summed into the rows of W the ids named (padding_idx rows: zeros)."""
    ids = _flat_index(ctx, x)
    rows, width = weight.shape
    bad = (ids < 0) | (ids >= rows)
    if bad.any():
        raise InvalidArgument(f"Variable value (input) of OP(fluid.layers.embedding) expected "
                              f">= 0 and < {rows}, but got {int(ids[bad][0])}. Please check "
                              "input value.")
    pos = ids[:, None] * width + np.arange(width)[None, :]
    if padding_idx != -1:
        pos = np.where((ids == padding_idx)[:, None], -1, pos)
    g = sum_into(ctx, weight.size, pos, ctx.xp.reshape(out_grad, (ids.size, width)), out_grad)
    return ctx.xp.reshape(g, weight.shape)


@grad_kernel("c_embedding_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "float16"],
                 input_defs={"ids": _ANY})
def c_embedding_grad(ctx, w: Tensor, ids: Tensor, out_grad: Tensor, start_index: Int64
                     ) -> Tensor:
    """out_grad's rows summed into rows ids - start_index of this shard's W (ids outside the
    shard give nothing)."""
    local = _flat_index(ctx, ids) - int(start_index)
    rows, width = w.shape
    pos = local[:, None] * width + np.arange(width)[None, :]
    pos = np.where(((local < 0) | (local >= rows))[:, None], -1, pos)
    g = sum_into(ctx, w.size, pos, ctx.xp.reshape(out_grad, (local.size, width)), out_grad)
    return ctx.xp.reshape(g, w.shape)


# -- scatters: the gradient passes to x where nothing was written --------------------------------

@grad_kernel("scatter_grad", ("CPU", "GPU"), dtypes=_FIIL, input_defs={"index": _ANY})
def scatter_grad(ctx, index: Tensor, updates: Tensor, out_grad: Tensor, overwrite: bool
                 ) -> tuple[Tensor, Tensor]:
    """(out_grad with the written rows zeroed, out_grad's rows at index)."""
    xp = ctx.xp
    idx = _flat_index(ctx, index)
    x_grad = xp.asarray(out_grad, copy=True)
    x_grad[idx] = 0
    return x_grad, xp.reshape(out_grad[idx], updates.shape)


@grad_kernel("scatter_nd_add_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "uint8"],
                 input_defs={"index": _ANY})
def scatter_nd_add_grad(ctx, index: Tensor, updates: Tensor, out_grad: Tensor
                        ) -> tuple[Tensor, Tensor]:
    """(out_grad, out_grad gathered at index: updates' gradient)."""
    xp = ctx.xp
    return (xp.asarray(out_grad, copy=True),
            xp.reshape(indexing.gather_nd(ctx, out_grad, index), updates.shape))


@grad_kernel("index_add_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "float16"],
                 input_defs={"index": _ANY})
def index_add_grad(ctx, index: Tensor, add_value: Tensor, out_grad: Tensor, axis: int
                   ) -> tuple[Tensor, Tensor]:
    """(out_grad, out_grad's slices at index along ``axis``: add_value's gradient)."""
    xp = ctx.xp
    return xp.asarray(out_grad, copy=True), indexing.index_select(ctx, out_grad, index, axis)


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
        value_grad = xp.reshape(_reduce_to(ctx, xp.reshape(picked, (-1,)), (1,)), value.shape)
    else:
        value_grad = _reduce_to(ctx, picked, value.shape)
    return x_grad, value_grad


@grad_kernel("put_along_axis_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "uint8"],
                 input_defs={"index": _ANY})
def put_along_axis_grad(ctx, x: Tensor, index: Tensor, value: Tensor, out: Tensor,
                        out_grad: Tensor, axis: int, reduce: str, include_self: bool
                        ) -> tuple[Tensor, Tensor]:
    """Gradients of put_along_axis by its reduction (PutAlongAxisGradKernel): x's passes where
    nothing was written (scaled for mul / mean, shared among the equal extremes for amin /
    amax); value's is out_grad at its target (shared likewise; only the last write of an
    element gets it for assign)."""
    ax = axis + x.ndim if axis < 0 else axis
    idx = np.asarray(index).astype(np.int64)
    g = np.asarray(out_grad).reshape(-1)
    xs, outs = np.asarray(x).reshape(-1), np.asarray(out).reshape(-1)
    dst, _ = _along_positions(idx.shape, x.shape, ax, idx)
    vpos = _along_positions(idx.shape, value.shape, ax, idx)[1]
    vals = np.asarray(value).reshape(-1)
    dt = g.dtype.type
    x_grad = g.copy()
    if not include_self or reduce == "assign":
        x_grad[dst] = 0
    elif reduce in ("mul", "multiply"):
        first = np.unique(dst, return_index=True)[1]
        d = dst[first]
        x_grad[d] = (x_grad[d] * outs[d] / xs[d]).astype(g.dtype)
    elif reduce in ("amin", "amax"):
        count = np.zeros(g.size, np.int64)
        for d, v in zip(dst, vpos, strict=True):
            if outs[d] != xs[d]:
                x_grad[d] = 0
            elif outs[d] == vals[v]:
                count[d] += 1
        x_grad = (x_grad / (count + 1).astype(g.dtype)).astype(g.dtype)
    elif reduce == "mean":
        count = np.bincount(dst, minlength=g.size)
        hit = count > 0
        x_grad[hit] = (x_grad[hit] / (count[hit] + 1).astype(g.dtype)).astype(g.dtype)
    value_grad = np.zeros(idx.size, g.dtype)
    if reduce == "assign":
        used = np.zeros(g.size, bool)
        for n in range(idx.size - 1, -1, -1):
            if not used[dst[n]]:
                value_grad[n] = g[dst[n]]
                used[dst[n]] = True
    elif reduce in ("add", "mean"):
        value_grad = g[dst].copy()
        if reduce == "mean":
            count = np.bincount(dst, minlength=g.size) + (1 if include_self else 0)
            value_grad = (value_grad / count[dst].astype(g.dtype)).astype(g.dtype)
    elif reduce in ("mul", "multiply"):
        value_grad = (g[dst] * (outs[dst] / vals[vpos])).astype(g.dtype)
    elif reduce in ("amin", "amax"):
        hit = outs[dst] == vals[vpos]
        count = np.bincount(dst[hit], minlength=g.size)
        share = np.where(outs[dst] == xs[dst], count[dst] + 1, count[dst]).astype(g.dtype)
        with np.errstate(all="ignore"):
            value_grad = np.where(hit, g[dst] / np.where(hit, share, dt(1)), dt(0)).astype(
                g.dtype)
    return x_grad.reshape(x.shape), value_grad.reshape(idx.shape)


# -- sorts and selections: the gradient goes to the selected positions ---------------------------

def _put_at(ctx, x, indices, out_grad, axis: int, keepdim: bool = True, ones_0d=False):
    """Zeros of x's dims with out_grad put at ``indices`` along ``axis`` (a 0-D x: out_grad,
    or ones where Paddle's kernel sets them: kthvalue, mode)."""
    if x.ndim == 0:
        if ones_0d:
            return ctx.xp.ones((), dtype=out_grad.dtype)
        return ctx.xp.asarray(out_grad, copy=True).reshape(())
    ax = axis + x.ndim if axis < 0 else axis
    idx = np.asarray(indices).astype(np.int64)
    g = np.asarray(out_grad)
    if not keepdim:
        idx, g = np.expand_dims(idx, ax), np.expand_dims(g, ax)
    x_grad = np.zeros(x.shape, g.dtype)
    np.put_along_axis(x_grad, idx, g, axis=ax)
    return x_grad


_SORT = ["float32", "float64", "int32", "int64"]


@grad_kernel("argsort_grad", ("CPU", "GPU"), dtypes=_SORT, input_defs={"indices": _ANY})
def argsort_grad(ctx, indices: Tensor, x: Tensor, out_grad: Tensor, axis: int,
                 descending: bool) -> Tensor:
    """out_grad put back at the sorted positions."""
    return _put_at(ctx, x, indices, out_grad, axis)


@grad_kernel("topk_grad", ("CPU", "GPU"), dtypes=_SORT, input_defs={"indices": _ANY})
def topk_grad(ctx, x: Tensor, indices: Tensor, out_grad: Tensor, k: Scalar, axis: int,
              largest: bool, sorted: bool) -> Tensor:
    """out_grad put at the top-k indices, zeros elsewhere."""
    return _put_at(ctx, x, indices, out_grad, axis)


@grad_kernel("kthvalue_grad", ("CPU", "GPU"), dtypes=_SORT, input_defs={"indices": _ANY})
def kthvalue_grad(ctx, x: Tensor, indices: Tensor, out_grad: Tensor, k: int, axis: int,
                  keepdim: bool) -> Tensor:
    """out_grad put at the k-th value's index, zeros elsewhere."""
    return _put_at(ctx, x, indices, out_grad, axis, keepdim, ones_0d=True)


@grad_kernel("mode_grad", ("CPU", "GPU"), dtypes=_SORT, input_defs={"indices": _ANY})
def mode_grad(ctx, x: Tensor, indices: Tensor, out_grad: Tensor, axis: int,
              keepdim: bool) -> Tensor:
    """out_grad put at the mode's index, zeros elsewhere."""
    return _put_at(ctx, x, indices, out_grad, axis, keepdim, ones_0d=True)


@grad_kernel("nanmedian_grad", ("CPU", "GPU"), dtypes=_SORT,
                 input_defs={"median_index": _ANY})
def nanmedian_grad(ctx, x: Tensor, median_index: Tensor, out_grad: Tensor, axis: IntArray,
                   keepdim: bool) -> Tensor:
    """out_grad to the median's element (halves to the two middle ones of an even count;
    nothing for an all-NaN row), rows taken over the reduced axes moved last."""
    g = np.asarray(out_grad).reshape(-1)
    if x.size == 0:
        return np.zeros(x.shape, g.dtype)
    axes = sorted({int(a) % x.ndim for a in axis.data}) if x.ndim > 1 else []
    perm = [a for a in range(x.ndim) if a not in axes] + axes if axes else list(range(x.ndim))
    moved = tuple(x.shape[a] for a in perm)
    stride = int(np.prod([x.shape[a] for a in axes], dtype=np.int64)) if axes else x.size
    rows = x.size // stride
    m = np.asarray(median_index).reshape(-1).astype(np.int64)
    dx = np.zeros((rows, stride), g.dtype)
    for i in range(rows):
        a, b = m[2 * i], m[2 * i + 1]
        if a < 0:
            continue
        if a == b:
            dx[i, a] = g[i]
        else:
            dx[i, a] = g[i] / g.dtype.type(2)
            dx[i, b] = g[i] / g.dtype.type(2)
    dx = dx.reshape(moved) if axes else dx.reshape(x.shape)
    return np.ascontiguousarray(np.transpose(dx, np.argsort(perm))) if axes else dx


# -- repeat_interleave: the copies' gradients summed --------------------------------------------

_REPEAT = ["float32", "float64", "int32", "int64", "bfloat16"]


@grad_kernel("repeat_interleave_grad", ("CPU", "GPU"), dtypes=_REPEAT)
def repeat_interleave_grad(ctx, x: Tensor, out_grad: Tensor, repeats: int, dim: int) -> Tensor:
    """The gradients of each slice's ``repeats`` copies summed."""
    return adjoint(ctx, x.shape, out_grad,
                   lambda ids: scatter.repeat_interleave(ctx, ids, repeats, dim))


@grad_kernel("repeat_interleave_with_tensor_index_grad", ("CPU", "GPU"), dtypes=_REPEAT,
                 input_defs={"repeats_tensor": _ANY})
def repeat_interleave_with_tensor_index_grad(ctx, x: Tensor, repeats_tensor: Tensor,
                                             out_grad: Tensor, dim: int) -> Tensor:
    """The gradients of slice i's repeats[i] copies summed."""
    return adjoint(ctx, x.shape, out_grad, lambda ids: scatter.repeat_interleave_with_tensor_index(
        ctx, ids, repeats_tensor, dim))
