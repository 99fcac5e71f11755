"""SparseCooTensor and SparseCsrTensor: Paddle's sparse tensor kinds (phi::SparseCooTensor,
phi::SparseCsrTensor), the values of SPARSE_COO / SPARSE_CSR variables.

A SparseCooTensor stands for a tensor of ``dims`` (its dense shape) of which only the points
listed in ``indices`` (int64 ``[sparse_dim, nnz]``, one column per point) are present; ``values``
holds one row per point (``[nnz, *dims[sparse_dim:]]``: the dense dimensions after the sparse
ones); the other elements are zero.  ``coalesced`` says the points are sorted (row-major over
the sparse dimensions) and unique, as Paddle's ``coalesced()`` does.

A SparseCsrTensor stands for a 2-D ``[rows, cols]`` or batched 3-D ``[batch, rows, cols]``
tensor: ``crows`` (int64 ``[batch * (rows + 1)]``: per batch, the offsets into cols / values of
each row), ``cols`` (int64 column of each non-zero) and ``values`` (1-D, one value per non-zero).

Both are DenseTensor subclasses whose tensor fields (``data``, ``dtype``, ``place``) are those of
their values, as Paddle's sparse tensors answer dtype() / place() from their values, and whose
``dims`` are the dense shape (Paddle's ``dims()``); ``layout`` is SPARSE_COO / SPARSE_CSR.
Being a DenseTensor lets the executor, scope and feeds carry them unchanged; the dispatcher
tells them apart (``is_sparse_coo`` / ``is_sparse_csr``) to answer the argument mapping's
``is_sparse_coo_tensor_input`` and refuses to hand one to a kernel argument that takes a dense
tensor.  Kernels that take them (phi/kernels/sparse/) receive the tensor object itself.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.common.place import Place
from phi.core.errors import InvalidArgument
from phi.core.tensor import CPU_PLACE, DenseTensor

__all__ = ["SparseCooTensor", "SparseCsrTensor", "is_sparse", "is_sparse_coo", "is_sparse_csr",
           "sparse_coo_tensor", "sparse_csr_tensor"]


class _SparseTensor(DenseTensor):
    """What both sparse kinds share: ``values`` is the stored data, ``dims`` the dense shape."""

    __slots__ = ("dense_shape",)

    @property
    def values(self):
        return self.data

    @property
    def dims(self) -> tuple[int, ...]:
        return self.dense_shape

    shape = dims


class SparseCooTensor(_SparseTensor):
    """indices (int64 [sparse_dim, nnz]), values ([nnz, *dense dims]), the dense shape and the
    coalesced flag."""

    __slots__ = ("coalesced", "indices")

    def __init__(self, indices, values, dims, coalesced: bool = False,
                 dtype: DataType | None = None, place: Place = CPU_PLACE) -> None:
        super().__init__(values, dtype, place, DataLayout.SPARSE_COO)
        self.indices = indices
        self.dense_shape = tuple(int(d) for d in dims)
        self.coalesced = bool(coalesced)

    @property
    def nnz(self) -> int:
        idx = self.indices
        if idx is None or idx.ndim == 0:
            return 0
        # Paddle's sum over every axis leaves 1-D indices [1] (one point, one sparse dim)
        return int(idx.shape[1]) if idx.ndim == 2 else int(idx.size > 0)

    @property
    def sparse_dim(self) -> int:
        return int(self.indices.shape[0])

    @property
    def dense_dim(self) -> int:
        return len(self.dense_shape) - self.sparse_dim

    def numpy(self) -> np.ndarray:
        """The dense array (a sparse tensor has no one array of its own; ``values`` holds the
        stored values)."""
        return self.to_dense()

    def to_dense(self, xp=np):
        """The full array: values written at their points into zeros; of repeated points the
        last one stays (Paddle's CooToDense writes, it does not add)."""
        out = xp.zeros(self.dense_shape, dtype=self.data.dtype)
        if self.nnz:
            idx = tuple(np.asarray(self.indices[i]).reshape(-1) for i in range(self.sparse_dim))
            out[idx] = self.data.reshape(-1, *self.dense_shape[self.sparse_dim:])
        return out

    def __repr__(self) -> str:
        return (f"SparseCooTensor(shape={list(self.dense_shape)}, nnz={self.nnz}, "
                f"sparse_dim={self.sparse_dim}, dtype={self.dtype}, "
                f"coalesced={self.coalesced})")


class SparseCsrTensor(_SparseTensor):
    """crows, cols (int64), values (1-D) and the dense shape (2-D or batched 3-D)."""

    __slots__ = ("cols", "crows")

    def __init__(self, crows, cols, values, dims, dtype: DataType | None = None,
                 place: Place = CPU_PLACE) -> None:
        super().__init__(values, dtype, place, DataLayout.SPARSE_CSR)
        self.crows = crows
        self.cols = cols
        self.dense_shape = tuple(int(d) for d in dims)

    @property
    def nnz(self) -> int:
        return int(self.cols.shape[0])

    def batch_rows(self):
        """(batch, rows): a 2-D tensor is one batch."""
        if len(self.dense_shape) == 2:
            return 1, self.dense_shape[0]
        return self.dense_shape[0], self.dense_shape[1]

    def row_ids(self):
        """(batch index, row index) of every non-zero, in storage order."""
        batch, rows = self.batch_rows()
        crows = np.asarray(self.crows).reshape(batch, rows + 1)
        b_ids, r_ids = [], []
        for b in range(batch):
            counts = np.diff(crows[b])
            r_ids.append(np.repeat(np.arange(rows, dtype=np.int64), counts))
            b_ids.append(np.full(int(counts.sum()), b, dtype=np.int64))
        cat = np.concatenate
        return (cat(b_ids) if b_ids else np.zeros(0, np.int64),
                cat(r_ids) if r_ids else np.zeros(0, np.int64))

    def numpy(self) -> np.ndarray:
        """The dense array (``values`` holds the stored values)."""
        return self.to_dense()

    def to_dense(self, xp=np):
        """The full array: each value at its (batch,) row and column (repeats summed)."""
        batch, rows = self.batch_rows()
        out = xp.zeros((batch, rows, self.dense_shape[-1]), dtype=self.data.dtype)
        if self.nnz:
            b, r = self.row_ids()
            xp.add.at(out, (b, r, np.asarray(self.cols)), self.data)
        return out.reshape(self.dense_shape)

    def __repr__(self) -> str:
        return (f"SparseCsrTensor(shape={list(self.dense_shape)}, nnz={self.nnz}, "
                f"dtype={self.dtype})")


def is_sparse_coo(value: object) -> bool:
    return type(value) is SparseCooTensor


def is_sparse_csr(value: object) -> bool:
    return type(value) is SparseCsrTensor


def is_sparse(value: object) -> bool:
    return type(value) in (SparseCooTensor, SparseCsrTensor)


def sparse_coo_tensor(indices, values, shape, coalesced: bool = False,
                      what: str = "sparse_coo_tensor") -> SparseCooTensor:
    """A CPU SparseCooTensor from array-likes, checked: indices 2-D integer with one column per
    row of values, every index inside ``shape``, ``len(shape) == sparse_dim + dense dims``;
    InvalidArgument naming ``what`` otherwise."""
    idx = np.asarray(indices)
    if idx.ndim != 2 or idx.dtype.kind not in "iu":
        raise InvalidArgument(f"{what}: indices must be a 2-D integer array "
                              f"[sparse_dim, nnz], got {idx.dtype} {list(idx.shape)}.")
    idx = idx.astype(np.int64, copy=False)
    val = np.asarray(values)
    shape = tuple(int(d) for d in shape)
    if val.ndim == 0 or val.shape[0] != idx.shape[1]:
        raise InvalidArgument(f"{what}: values' first dimension ({list(val.shape)}) must be "
                              f"the number of points nnz={idx.shape[1]}.")
    if len(shape) != idx.shape[0] + val.ndim - 1 or tuple(val.shape[1:]) != shape[idx.shape[0]:]:
        raise InvalidArgument(f"{what}: shape {list(shape)} must be the {idx.shape[0]} sparse "
                              f"dims then the values' dense dims {list(val.shape[1:])}.")
    if idx.size and (idx.min() < 0 or np.any(idx.max(axis=1) >= np.asarray(shape[:idx.shape[0]]))):
        raise InvalidArgument(f"{what}: indices must lie inside the shape {list(shape)}.")
    t = DenseTensor.from_numpy(val)
    return SparseCooTensor(idx, t.data, shape, coalesced, t.dtype)


def sparse_csr_tensor(crows, cols, values, shape,
                      what: str = "sparse_csr_tensor") -> SparseCsrTensor:
    """A CPU SparseCsrTensor from array-likes, checked: a 2-D or 3-D shape, crows of
    ``batch * (rows + 1)`` non-decreasing offsets starting at 0 per batch, cols / values of the
    same length, columns inside the shape; InvalidArgument naming ``what`` otherwise."""
    shape = tuple(int(d) for d in shape)
    if len(shape) not in (2, 3):
        raise InvalidArgument(f"{what}: the shape must be 2-D or 3-D, got {list(shape)}.")
    cr = np.asarray(crows).astype(np.int64).reshape(-1)
    cl = np.asarray(cols).astype(np.int64).reshape(-1)
    val = np.asarray(values).reshape(-1)
    batch = 1 if len(shape) == 2 else shape[0]
    rows = shape[-2]
    if cr.size != batch * (rows + 1):
        raise InvalidArgument(f"{what}: crows must hold batch * (rows + 1) = "
                              f"{batch * (rows + 1)} offsets, got {cr.size}.")
    per = cr.reshape(batch, rows + 1)
    if np.any(per[:, 0] != 0) or np.any(np.diff(per, axis=1) < 0):
        raise InvalidArgument(f"{what}: each batch's crows must start at 0 and not decrease.")
    if cl.size != val.size or int(per[:, -1].sum()) != cl.size:
        raise InvalidArgument(f"{what}: cols ({cl.size}) and values ({val.size}) must hold "
                              f"the {int(per[:, -1].sum())} non-zeros crows count.")
    if cl.size and (cl.min() < 0 or cl.max() >= shape[-1]):
        raise InvalidArgument(f"{what}: cols must lie in [0, {shape[-1]}).")
    t = DenseTensor.from_numpy(val)
    return SparseCsrTensor(cr, cl, t.data, shape, t.dtype)
