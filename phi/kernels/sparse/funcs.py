"""Helpers shared by the sparse kernels (Paddle's phi/kernels/funcs/sparse/): registration with
SPARSE_COO / SPARSE_CSR argument layouts, linear indices, coalescing and COO <-> CSR.

A sparse kernel takes and returns the tensor objects (SparseCooTensor / SparseCsrTensor of
phi.core.sparse_tensor): its sparse arguments are annotated ``Sparse`` (the kernel-argument
marker that hands the kernel the tensor itself, not its array), and ``register_sparse``
declares their layouts, as Paddle's registration bodies call
``kernel->InputAt(0).SetDataLayout(phi::DataLayout::SPARSE_COO)``.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor
from phi.core.registry import register_kernel
from phi.core.sparse_tensor import SparseCooTensor, SparseCsrTensor

__all__ = ["COO", "CSR", "DENSE_ANY", "Sparse", "coalesce_arrays", "coo_from_dense",
           "coo_to_csr_tensor", "csr_from_dense", "csr_to_coo_tensor", "linear_index",
           "register_sparse", "same_indices_coo", "unravel"]

#: annotation of a sparse tensor argument or output: the kernel sees the tensor object
Sparse = LoDTensor
COO = DataLayout.SPARSE_COO
CSR = DataLayout.SPARSE_CSR
#: an index tensor (indices of sparse_coo_tensor): its dtype is not the kernel's
DENSE_ANY = {"dtype": DataType.ALL_DTYPE}


def register_sparse(name: str, dtypes, inputs: dict | None = None, outputs: dict | None = None):
    """Register a CPU sparse kernel; ``inputs`` maps parameter names and ``outputs`` output
    positions to a layout (COO / CSR) or to a dict of argument overrides.  As in Paddle's
    registration bodies only the sparse inputs get their layout; outputs keep the default
    (Paddle's trace prints them ``CPU, NCHW, <dtype>``)."""
    def defs(table):
        return {k: (v if isinstance(v, dict) else {"layout": v}) for k, v in (table or {}).items()}

    return register_kernel(name, "CPU", dtypes=dtypes, input_defs=defs(inputs),
                           output_defs=defs(outputs))


def linear_index(indices: np.ndarray, dims) -> np.ndarray:
    """Row-major linear index of each column of ``indices`` over ``dims`` (Paddle's
    IndicesToIndex: batch first)."""
    out = np.zeros(indices.shape[1], dtype=np.int64)
    for i, d in enumerate(dims):
        out = out * int(d) + indices[i].astype(np.int64)
    return out


def unravel(linear: np.ndarray, dims) -> np.ndarray:
    """The inverse of ``linear_index``: int64 ``[len(dims), n]``."""
    if not len(dims):
        return np.zeros((0, linear.shape[0]), dtype=np.int64)
    return np.stack(np.unravel_index(linear.astype(np.int64), tuple(int(d) for d in dims))
                    ).astype(np.int64).reshape(len(dims), -1)


def coalesce_arrays(indices: np.ndarray, values: np.ndarray, sparse_dims):
    """Points sorted by linear index with duplicates summed (Paddle's CoalesceCooKernel)."""
    lin = linear_index(indices, sparse_dims)
    uniq, inverse = np.unique(lin, return_inverse=True)
    out = np.zeros((uniq.shape[0], *values.shape[1:]), dtype=values.dtype)
    if values.dtype == np.bool_:
        np.logical_or.at(out, inverse.reshape(-1), values)
    else:
        np.add.at(out, inverse.reshape(-1), values)
    return unravel(uniq, sparse_dims).astype(indices.dtype), out


def same_indices_coo(x: SparseCooTensor, values, coalesced: bool | None = None,
                     dtype: DataType | None = None) -> SparseCooTensor:
    """A COO tensor with ``x``'s points and new values."""
    return SparseCooTensor(x.indices.copy(), values, x.dense_shape,
                           x.coalesced if coalesced is None else coalesced, dtype, x.place)


def coo_from_dense(array: np.ndarray, sparse_dim: int) -> SparseCooTensor:
    """Paddle's DenseToCooKernel: a point for every index over the first ``sparse_dim``
    dimensions whose dense slice has a non-zero, in row-major order."""
    ndim = array.ndim
    if not 0 < sparse_dim <= ndim:
        raise InvalidArgument(f"to_sparse_coo: sparse_dim must be in [1, {ndim}], got "
                              f"{sparse_dim}.")
    lead = array.reshape(*array.shape[:sparse_dim], -1)
    mask = np.any(lead != 0, axis=-1) if lead.shape[-1] else np.zeros(lead.shape[:-1], bool)
    where = np.nonzero(mask)
    indices = np.stack(where).astype(np.int64).reshape(sparse_dim, -1)
    values = array[where]
    return SparseCooTensor(indices, np.ascontiguousarray(values), array.shape, True)


def csr_from_dense(array: np.ndarray) -> SparseCsrTensor:
    """Paddle's DenseToCsrKernel: 2-D or 3-D, every non-zero in row-major order."""
    if array.ndim not in (2, 3):
        raise InvalidArgument(f"to_sparse_csr: the input must be 2-D or 3-D, got "
                              f"{array.ndim}-D {list(array.shape)}.")
    a3 = array.reshape(array.shape[0] if array.ndim == 3 else 1, *array.shape[-2:])
    batch, rows, _ = a3.shape
    b, r, c = np.nonzero(a3 != 0)
    counts = np.zeros((batch, rows), dtype=np.int64)
    np.add.at(counts, (b, r), 1)
    crows = np.concatenate([np.zeros((batch, 1), np.int64), np.cumsum(counts, axis=1)], axis=1)
    return SparseCsrTensor(crows.reshape(-1), c.astype(np.int64), a3[b, r, c], array.shape)


def csr_to_coo_tensor(x: SparseCsrTensor) -> SparseCooTensor:
    """Paddle's CsrToCooKernel: indices [2, nnz] (or [3, nnz] batch first)."""
    b, r = x.row_ids()
    cols = np.asarray(x.cols, dtype=np.int64)
    rows = [r, cols] if len(x.dense_shape) == 2 else [b, r, cols]
    indices = np.stack(rows).astype(np.asarray(x.crows).dtype).reshape(len(rows), -1)
    return SparseCooTensor(indices, x.values.copy(), x.dense_shape, True, x.dtype, x.place)


def coo_to_csr_tensor(x: SparseCooTensor, what: str = "coo_to_csr") -> SparseCsrTensor:
    """Paddle's CooToCsrKernel: 2-D or 3-D with every dimension sparse; the points are taken
    in their order (Paddle counts rows, then copies columns and values as they come)."""
    ndim = len(x.dense_shape)
    if ndim not in (2, 3) or x.sparse_dim != ndim:
        raise InvalidArgument(f"{what}: SparseCsrTensor only supports 2-D or 3-D tensors with "
                              f"every dimension sparse, got shape {list(x.dense_shape)} with "
                              f"sparse_dim {x.sparse_dim}.")
    idx = np.asarray(x.indices, dtype=np.int64)
    batch = 1 if ndim == 2 else x.dense_shape[0]
    rows = x.dense_shape[-2]
    b = np.zeros(idx.shape[1], np.int64) if ndim == 2 else idx[0]
    counts = np.zeros((batch, rows), dtype=np.int64)
    np.add.at(counts, (b, idx[-2]), 1)
    crows = np.concatenate([np.zeros((batch, 1), np.int64), np.cumsum(counts, axis=1)], axis=1)
    dtype = np.asarray(x.indices).dtype
    return SparseCsrTensor(crows.reshape(-1).astype(dtype), idx[-1].astype(dtype),
                           x.values.copy(), x.dense_shape, x.dtype, x.place)


def sorted_coo(x: SparseCooTensor) -> SparseCooTensor:
    """``x`` with its points in row-major order (stable; duplicates kept)."""
    lin = linear_index(x.indices, x.dense_shape[:x.sparse_dim])
    order = np.argsort(lin, kind="stable")
    return SparseCooTensor(x.indices[:, order], x.values[order], x.dense_shape, x.coalesced,
                           x.dtype, x.place)
