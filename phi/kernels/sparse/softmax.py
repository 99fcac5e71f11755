"""Softmax of sparse tensors over their stored values (Paddle's phi/kernels/sparse/
softmax_kernel.h, cpu/softmax_kernel.cc): along the last axis only (``axis`` -1), each row's
stored values (a CSR row; for COO, the points that share every index but the last) are
normalized among themselves: absent elements are not zeros, they are left out."""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.kernels.sparse.funcs import COO, CSR, Sparse, linear_index, register_sparse
from phi.kernels.sparse.unary import with_values

__all__ = ["softmax_coo", "softmax_csr"]

DTYPES = ["float32", "float64"]


def _grouped_softmax(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Softmax of ``values`` (along axis 0) within each group id (max subtracted first)."""
    out = np.empty_like(values)
    if not values.shape[0]:
        return out
    uniq, inv = np.unique(groups, return_inverse=True)
    inv = inv.reshape(-1)
    mx = np.full((uniq.size, *values.shape[1:]), -np.inf, dtype=values.dtype)
    np.maximum.at(mx, inv, values)
    e = np.exp(values - mx[inv])
    s = np.zeros_like(mx)
    np.add.at(s, inv, e)
    out[...] = e / s[inv]
    return out


def _check_axis(axis: int, ndim: int, op: str) -> None:
    if axis not in (-1, ndim - 1):
        raise InvalidArgument(f"{op}: sparse softmax only supports the last axis (-1), got "
                              f"axis {axis}.")


@register_sparse("softmax_csr", DTYPES, {"x": CSR})
def softmax_csr(ctx, x: Sparse, axis: int) -> Sparse:
    """Softmax of each row's stored values."""
    _check_axis(axis, len(x.dense_shape), "softmax_csr")
    b, r = x.row_ids()
    return with_values(x, _grouped_softmax(np.asarray(x.values), b * (x.batch_rows()[1]) + r))


@register_sparse("softmax_coo", DTYPES, {"x": COO})
def softmax_coo(ctx, x: Sparse, axis: int) -> Sparse:
    """Softmax of the stored values of each last-axis line."""
    ndim = len(x.dense_shape)
    _check_axis(axis, ndim, "softmax_coo")
    values = np.asarray(x.values)
    if x.sparse_dim < ndim:  # the last axis is dense: a plain softmax inside each value row
        mx = values.max(axis=-1, keepdims=True)
        e = np.exp(values - mx)
        return with_values(x, (e / e.sum(axis=-1, keepdims=True)).astype(values.dtype))
    idx = np.asarray(x.indices)
    groups = linear_index(idx[:-1], x.dense_shape[:x.sparse_dim - 1])
    return with_values(x, _grouped_softmax(values, groups))


def _softmax_grad(out, out_grad, groups):
    """dx = out * (dout - sum(dout * out)) within each row (group)."""
    o = np.asarray(out.values)
    g = np.asarray(out_grad.values)
    uniq, inv = np.unique(groups, return_inverse=True)
    inv = inv.reshape(-1)
    s = np.zeros((uniq.size, *o.shape[1:]), dtype=o.dtype)
    np.add.at(s, inv, o * g)
    return with_values(out, (o * (g - s[inv])).astype(o.dtype))


@register_sparse("softmax_csr_grad", DTYPES, {"out": CSR, "out_grad": CSR})
def softmax_csr_grad(ctx, out: Sparse, out_grad: Sparse, axis: int) -> Sparse:
    """x_grad of softmax_csr, row by row."""
    _check_axis(axis, len(out.dense_shape), "softmax_csr_grad")
    b, r = out.row_ids()
    return _softmax_grad(out, out_grad, b * out.batch_rows()[1] + r)


@register_sparse("softmax_coo_grad", DTYPES, {"out": COO, "out_grad": COO})
def softmax_coo_grad(ctx, out: Sparse, out_grad: Sparse, axis: int) -> Sparse:
    """x_grad of softmax_coo, line by line along the last axis."""
    ndim = len(out.dense_shape)
    _check_axis(axis, ndim, "softmax_coo_grad")
    if out.sparse_dim < ndim:
        o, g = np.asarray(out.values), np.asarray(out_grad.values)
        return with_values(out, (o * (g - (o * g).sum(axis=-1, keepdims=True))).astype(o.dtype))
    idx = np.asarray(out.indices)
    return _softmax_grad(out, out_grad, linear_index(idx[:-1],
                                                     out.dense_shape[:out.sparse_dim - 1]))
