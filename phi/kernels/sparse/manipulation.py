"""Shape kernels of sparse tensors (Paddle's phi/kernels/sparse/unary_kernel.h: reshape,
transpose, slice, sum; cpu/reshape_kernel.cc, transpose_kernel.cc, slice_kernel.cc,
sum_kernel.cc).  The CSR forms go through COO and back (a CSR result is always row-major)."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.core.sparse_tensor import SparseCooTensor
from phi.kernels.sparse.funcs import (
    COO,
    CSR,
    Sparse,
    coalesce_arrays,
    coo_to_csr_tensor,
    csr_to_coo_tensor,
    linear_index,
    register_sparse,
    sorted_coo,
    unravel,
)

__all__ = ["reshape_coo", "reshape_csr", "slice_coo", "slice_csr", "sum_coo", "sum_csr",
           "transpose_coo", "transpose_csr"]

DTYPES = ["bool", "float32", "float64", "int16", "int32", "int64", "int8", "uint8"]
SUM_DTYPES = ["bool", "float32", "float64", "int16", "int32", "int64"]


def _reshape_dims(dims, shape, op: str):
    shape = list(shape)
    out = [dims[i] if s == 0 else s for i, s in enumerate(shape)]
    total = int(np.prod(dims))
    if out.count(-1) > 1:
        raise InvalidArgument(f"{op}: only one dimension of shape may be -1, got {shape}.")
    if -1 in out:
        rest = int(np.prod([d for d in out if d != -1]))
        out[out.index(-1)] = total // rest if rest else 0
    if int(np.prod(out)) != total:
        raise InvalidArgument(f"{op}: cannot reshape {list(dims)} to {shape}.")
    return out


def reshape_coo_tensor(x: SparseCooTensor, shape, op: str = "reshape_coo") -> SparseCooTensor:
    """Sparse dims re-split through their linear index; the dense dims must stay."""
    dims = x.dense_shape
    out = _reshape_dims(dims, shape, op)
    dense = list(dims[x.sparse_dim:])
    if dense and out[len(out) - len(dense):] != dense:
        raise InvalidArgument(f"{op}: the dense dimensions {dense} must stay the last ones, "
                              f"got shape {out}.")
    new_sparse = out[:len(out) - len(dense)]
    lin = linear_index(np.asarray(x.indices), dims[:x.sparse_dim])
    indices = unravel(lin, new_sparse).astype(np.asarray(x.indices).dtype)
    return SparseCooTensor(indices, x.values.copy(), out, x.coalesced, x.dtype, x.place)


@register_sparse("reshape_coo", DTYPES, {"x": COO})
def reshape_coo(ctx, x: Sparse, shape: IntArray) -> Sparse:
    """The same points in a new shape (0: keep that dimension, -1: inferred)."""
    return reshape_coo_tensor(x, shape)


@register_sparse("reshape_csr", DTYPES, {"x": CSR})
def reshape_csr(ctx, x: Sparse, shape: IntArray) -> Sparse:
    """The same non-zeros in a new 2-D / 3-D shape."""
    out = reshape_coo_tensor(csr_to_coo_tensor(x), shape, "reshape_csr")
    return coo_to_csr_tensor(sorted_coo(out), "reshape_csr")


def transpose_coo_tensor(x: SparseCooTensor, perm, op: str = "transpose_coo"):
    ndim = len(x.dense_shape)
    perm = [p + ndim if p < 0 else p for p in perm]
    if sorted(perm) != list(range(ndim)):
        raise InvalidArgument(f"{op}: perm must be a permutation of 0..{ndim - 1}, got "
                              f"{list(perm)}.")
    sd = x.sparse_dim
    if any(p >= sd for p in perm[:sd]):
        raise InvalidArgument(f"{op}: perm may not move dense dimensions into the sparse ones "
                              f"(sparse_dim {sd}), got {list(perm)}.")
    idx = np.asarray(x.indices)[perm[:sd]].copy()
    dense_perm = [0] + [p - sd + 1 for p in perm[sd:]]
    values = np.ascontiguousarray(np.transpose(x.values, dense_perm))
    dims = [x.dense_shape[p] for p in perm]
    return SparseCooTensor(idx, values, dims, False, x.dtype, x.place)


@register_sparse("transpose_coo", DTYPES, {"x": COO})
def transpose_coo(ctx, x: Sparse, perm: list[int]) -> Sparse:
    """The index rows (and dense dims of the values) permuted; the points keep their order."""
    return transpose_coo_tensor(x, perm)


@register_sparse("transpose_csr", DTYPES, {"x": CSR})
def transpose_csr(ctx, x: Sparse, perm: list[int]) -> Sparse:
    """The transposed tensor, in row-major CSR."""
    out = transpose_coo_tensor(csr_to_coo_tensor(x), perm, "transpose_csr")
    return coo_to_csr_tensor(sorted_coo(out), "transpose_csr")


def slice_coo_tensor(x: SparseCooTensor, axes, starts, ends, op: str = "slice_coo"):
    dims = list(x.dense_shape)
    ndim = len(dims)
    idx = np.asarray(x.indices)
    keep = np.ones(idx.shape[1], dtype=bool)
    shift = np.zeros(x.sparse_dim, dtype=idx.dtype)
    dense_slices = [slice(None)] * (ndim - x.sparse_dim)
    if not len(axes) == len(starts) == len(ends):
        raise InvalidArgument(f"{op}: axes, starts and ends must have the same length, got "
                              f"{list(axes)}, {list(starts)}, {list(ends)}.")
    out_dims = list(dims)
    for a, s, e in zip(axes, starts, ends, strict=True):
        a = a + ndim if a < 0 else a
        if not 0 <= a < ndim:
            raise InvalidArgument(f"{op}: axis {a} out of range for rank {ndim}.")
        d = dims[a]
        s = s + d if s < 0 else s
        e = e + d if e < 0 else e
        s, e = min(max(s, 0), d), min(max(e, 0), d)
        e = max(e, s)
        out_dims[a] = e - s
        if a < x.sparse_dim:
            keep &= (idx[a] >= s) & (idx[a] < e)
            shift[a] = s
        else:
            dense_slices[a - x.sparse_dim] = slice(s, e)
    indices = idx[:, keep] - shift[:, None]
    values = x.values[keep][(slice(None), *dense_slices)]
    return SparseCooTensor(indices, np.ascontiguousarray(values), out_dims, x.coalesced,
                           x.dtype, x.place)


@register_sparse("slice_coo", DTYPES, {"x": COO})
def slice_coo(ctx, x: Sparse, axes: IntArray, starts: IntArray, ends: IntArray) -> Sparse:
    """The points inside [start, end) on each axis, shifted to the new origin."""
    return slice_coo_tensor(x, list(axes), list(starts), list(ends))


@register_sparse("slice_csr", DTYPES, {"x": CSR})
def slice_csr(ctx, x: Sparse, axes: IntArray, starts: IntArray, ends: IntArray) -> Sparse:
    """The non-zeros inside [start, end) on each axis, as CSR."""
    out = slice_coo_tensor(csr_to_coo_tensor(x), list(axes), list(starts), list(ends),
                           "slice_csr")
    return coo_to_csr_tensor(out, "slice_csr")


def sum_coo_tensor(x: SparseCooTensor, axis, dtype: DataType, keepdim: bool,
                   op: str = "sum_coo") -> SparseCooTensor:
    dims = list(x.dense_shape)
    ndim = len(dims)
    values = np.asarray(x.values)
    out_np = values.dtype if dtype is DataType.UNDEFINED else dtype.to_numpy()
    idx = np.asarray(x.indices)
    axis = [a + ndim if a < 0 else a for a in axis]
    if not axis or sorted(axis) == list(range(ndim)):  # everything: one point
        total = np.asarray(values.astype(out_np).sum(dtype=out_np))
        if keepdim:
            return SparseCooTensor(np.zeros((ndim, 1), dtype=idx.dtype), total.reshape(1),
                                   [1] * ndim, True, None, x.place)
        # Paddle's shapes: indices [1], values 0-d, dims [1]
        return SparseCooTensor(np.zeros((1,), dtype=idx.dtype), total, [1], True, None,
                               x.place)
    if len(axis) != 1:
        raise InvalidArgument(f"{op}: sparse sum takes one axis or all, got {axis}.")
    a = axis[0]
    out_dims = [1 if i == a else d for i, d in enumerate(dims)] if keepdim else [
        d for i, d in enumerate(dims) if i != a]
    if a >= x.sparse_dim:  # a dense dimension: summed inside each value row
        summed = values.astype(out_np).sum(axis=a - x.sparse_dim + 1, keepdims=keepdim,
                                          dtype=out_np)
        return SparseCooTensor(idx.copy(), summed, out_dims, x.coalesced, None, x.place)
    rest = [i for i in range(x.sparse_dim) if i != a]
    sub = idx[rest] if rest else np.zeros((0, idx.shape[1]), idx.dtype)
    new_idx, summed = coalesce_arrays(sub, values.astype(out_np), [dims[i] for i in rest])
    if keepdim:
        new_idx = np.insert(new_idx, a, 0, axis=0)
    if not rest and not keepdim:  # sum over the only sparse dimension
        new_idx = np.zeros((1, summed.shape[0]), dtype=idx.dtype) if summed.ndim == 1 else (
            new_idx)
    return SparseCooTensor(new_idx.astype(idx.dtype), summed, out_dims, True, None, x.place)


@register_sparse("sum_coo", SUM_DTYPES, {"x": COO},
                 {0: {"dtype": DataType.ALL_DTYPE}})
def sum_coo(ctx, x: Sparse, axis: IntArray, dtype: DataType, keepdim: bool) -> Sparse:
    """Sum over one axis (or all): the points that meet are added."""
    return sum_coo_tensor(x, list(axis), dtype, keepdim)


@register_sparse("sum_csr", SUM_DTYPES, {"x": CSR},
                 {0: {"dtype": DataType.ALL_DTYPE}})
def sum_csr(ctx, x: Sparse, axis: IntArray, dtype: DataType, keepdim: bool) -> Sparse:
    """Sum over the last axis (or all) of a CSR tensor, as CSR."""
    out = sum_coo_tensor(csr_to_coo_tensor(x), list(axis), dtype, keepdim, "sum_csr")
    if len(out.dense_shape) not in (2, 3) or out.sparse_dim != len(out.dense_shape):
        raise InvalidArgument(f"sum_csr: the result {list(out.dense_shape)} is not a 2-D / "
                              "3-D tensor; pass keepdim=True.")
    return coo_to_csr_tensor(out, "sum_csr")


# -- grads --------------------------------------------------------------------------------

def _inverse(perm):
    ndim = len(perm)
    perm = [p + ndim if p < 0 else p for p in perm]
    inv = [0] * ndim
    for i, p in enumerate(perm):
        inv[p] = i
    return inv


@register_sparse("transpose_coo_grad", DTYPES, {"x": COO, "out_grad": COO})
def transpose_coo_grad(ctx, x: Sparse, out_grad: Sparse, perm: list[int]) -> Sparse:
    """out_grad transposed back (the inverse permutation)."""
    return transpose_coo_tensor(out_grad, _inverse(perm), "transpose_coo_grad")


@register_sparse("transpose_csr_grad", DTYPES, {"x": CSR, "out_grad": CSR})
def transpose_csr_grad(ctx, x: Sparse, out_grad: Sparse, perm: list[int]) -> Sparse:
    """out_grad transposed back (the inverse permutation), as CSR."""
    out = transpose_coo_tensor(csr_to_coo_tensor(out_grad), _inverse(perm),
                               "transpose_csr_grad")
    return coo_to_csr_tensor(sorted_coo(out), "transpose_csr_grad")


@register_sparse("reshape_coo_grad", DTYPES, {"x": COO, "out_grad": COO})
def reshape_coo_grad(ctx, x: Sparse, out_grad: Sparse) -> Sparse:
    """out_grad in x's shape."""
    return reshape_coo_tensor(out_grad, x.dense_shape, "reshape_coo_grad")


@register_sparse("reshape_csr_grad", DTYPES, {"x": CSR, "out_grad": CSR})
def reshape_csr_grad(ctx, x: Sparse, out_grad: Sparse) -> Sparse:
    """out_grad in x's shape, as CSR."""
    out = reshape_coo_tensor(csr_to_coo_tensor(out_grad), x.dense_shape, "reshape_csr_grad")
    return coo_to_csr_tensor(sorted_coo(out), "reshape_csr_grad")


@register_sparse("slice_coo_grad", DTYPES, {"x": COO, "out_grad": COO})
def slice_coo_grad(ctx, x: Sparse, out_grad: Sparse, axes: IntArray, starts: IntArray,
                   ends: IntArray) -> Sparse:
    """out_grad's points moved back by the starts, in x's shape (dense axes padded)."""
    return _slice_back(x, out_grad, list(axes), list(starts), "slice_coo_grad")


@register_sparse("slice_csr_grad", DTYPES, {"x": CSR, "out_grad": CSR})
def slice_csr_grad(ctx, x: Sparse, out_grad: Sparse, axes: IntArray, starts: IntArray,
                   ends: IntArray) -> Sparse:
    """out_grad's non-zeros moved back by the starts, in x's shape, as CSR."""
    back = _slice_back(csr_to_coo_tensor(x), csr_to_coo_tensor(out_grad), list(axes),
                       list(starts), "slice_csr_grad")
    return coo_to_csr_tensor(back, "slice_csr_grad")


def _slice_back(x, g, axes, starts, op: str) -> SparseCooTensor:
    dims = list(x.dense_shape)
    ndim = len(dims)
    idx = np.asarray(g.indices).copy()
    values = np.asarray(g.values)
    pads = [(0, 0)] * values.ndim
    for a, s in zip(axes, starts, strict=True):
        a = a + ndim if a < 0 else a
        d = dims[a]
        s = min(max(s + d if s < 0 else s, 0), d)
        if a < x.sparse_dim:
            idx[a] += s
        else:  # a dense axis: the values padded back to x's extent
            k = a - x.sparse_dim + 1
            pads[k] = (s, dims[a] - s - values.shape[k])
    if any(p != (0, 0) for p in pads):
        values = np.pad(values, pads)
    return SparseCooTensor(idx, np.ascontiguousarray(values), dims, g.coalesced, g.dtype,
                           g.place)


@register_sparse("sum_coo_grad", SUM_DTYPES, {"x": COO, "out_grad": COO})
def sum_coo_grad(ctx, x: Sparse, out_grad: Sparse, axis: IntArray, keepdim: bool) -> Sparse:
    """x's points, each with out_grad's value where it was summed into (0 where out_grad has
    no point there)."""
    return _sum_back(x, out_grad, list(axis), "sum_coo_grad")


@register_sparse("sum_csr_grad", SUM_DTYPES, {"x": CSR, "out_grad": CSR})
def sum_csr_grad(ctx, x: Sparse, out_grad: Sparse, axis: IntArray, keepdim: bool) -> Sparse:
    """x's non-zeros, each with out_grad's value where it was summed into."""
    back = _sum_back(csr_to_coo_tensor(x), csr_to_coo_tensor(out_grad), list(axis),
                     "sum_csr_grad")
    return coo_to_csr_tensor(back, "sum_csr_grad")


def _sum_back(x, g, axis, op: str) -> SparseCooTensor:
    dims = list(x.dense_shape)
    ndim = len(dims)
    xv = np.asarray(x.values)
    gv = np.asarray(g.values)
    axis = [a + ndim if a < 0 else a for a in axis]
    idx = np.asarray(x.indices)
    if not axis or sorted(axis) == list(range(ndim)):
        values = np.full(xv.shape, gv.reshape(-1)[0], dtype=xv.dtype)
    elif axis[0] >= x.sparse_dim:  # a dense axis: broadcast along it
        k = axis[0] - x.sparse_dim + 1
        g_full = gv if gv.ndim == xv.ndim else np.expand_dims(gv, k)
        values = np.broadcast_to(g_full, xv.shape).astype(xv.dtype)
    else:
        a = axis[0]
        rest = [i for i in range(x.sparse_dim) if i != a]
        g_idx = np.asarray(g.indices)
        if g_idx.shape[0] == x.sparse_dim:  # keepdim: the summed axis is there, at 0
            g_idx = g_idx[rest]
        rest_dims = [dims[i] for i in rest]
        table = {int(v): j for j, v in enumerate(linear_index(g_idx, rest_dims))}
        values = np.zeros_like(xv)
        for i, v in enumerate(linear_index(idx[rest], rest_dims)):
            j = table.get(int(v))
            if j is not None:
                values[i] = gv[j]
    return SparseCooTensor(idx.copy(), values, dims, x.coalesced, x.dtype, x.place)
