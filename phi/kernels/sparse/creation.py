"""Making, converting and taking apart sparse tensors (Paddle's phi/kernels/sparse/
sparse_utils_kernel.h, cpu/sparse_utils_kernel.cc, full_kernel, coalesce_kernel):
sparse_coo_tensor, full_like_coo / _csr, dense_to_coo / _csr, coo_to_dense, csr_to_dense,
coo_to_csr, csr_to_coo, values_coo / _csr, indices_coo, coalesce_coo."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Int64, Tensor
from phi.core.sparse_tensor import SparseCooTensor
from phi.kernels.funcs import scalar_as
from phi.kernels.sparse.funcs import (
    COO,
    CSR,
    DENSE_ANY,
    Sparse,
    coalesce_arrays,
    coo_from_dense,
    coo_to_csr_tensor,
    csr_from_dense,
    csr_to_coo_tensor,
    register_sparse,
)
from phi.kernels.sparse.unary import with_values

__all__ = ["coalesce_coo", "coo_to_csr", "coo_to_dense", "csr_to_coo", "csr_to_dense",
           "dense_to_coo", "dense_to_csr", "full_like_coo", "full_like_csr", "indices_coo",
           "sparse_coo_tensor", "values_coo", "values_csr"]

CONVERT_DTYPES = ["bool", "float16", "float32", "float64", "int16", "int32", "int64", "int8",
                  "uint8"]
#: values_coo_grad, coo_to_dense_grad, empty_like, mask_coo: no float16 kernel
NO_HALF_DTYPES = [d for d in CONVERT_DTYPES if d != "float16"]
#: dense_to_coo / dense_to_csr / indices_coo: no bool kernel
DENSE_TO_DTYPES = ["float16", "float32", "float64", "int16", "int32", "int64", "int8", "uint8"]
SPARSE_COO_TENSOR_DTYPES = ["float16", "float32", "float64", "int16", "int32", "int64", "uint8"]
COALESCE_DTYPES = SPARSE_COO_TENSOR_DTYPES
FULL_LIKE_DTYPES = ["bfloat16", "bool", "complex128", "complex64", "float16", "float32",
                    "float64", "int16", "int32", "int64", "uint8"]


@register_sparse("sparse_coo_tensor", SPARSE_COO_TENSOR_DTYPES, {"indices": DENSE_ANY},
                 {})
def sparse_coo_tensor(ctx, values: Tensor, indices: Tensor, shape: IntArray) -> Sparse:
    """A COO tensor of ``indices`` ([sparse_dim, nnz]) and ``values`` in ``shape`` (Paddle
    takes both as they are: not coalesced)."""
    dims = list(shape.data if hasattr(shape, "data") else shape)
    indices = np.asarray(indices)
    if values.ndim == 0:
        raise InvalidArgument("sparse_coo_tensor: values must be [nnz, *dense dims], got a 0-D "
                              "tensor.")
    if indices.ndim != 2 or indices.shape[1] != values.shape[0]:
        raise InvalidArgument(f"sparse_coo_tensor: indices must be [sparse_dim, nnz] with nnz = "
                              f"values' first dimension {values.shape[0]}, got "
                              f"{list(indices.shape)}.")
    if any(d < 0 for d in dims) and indices.shape[1]:  # -1 (a None batch): the points' extent
        lead = indices.max(axis=1) + 1
        dims = [int(lead[i]) if d < 0 and i < len(lead) else d for i, d in enumerate(dims)]
    return SparseCooTensor(indices.copy(), values.copy(), dims, False)


def _full_like(ctx, x, value: Scalar, dtype: DataType):
    dtype = x.dtype if dtype is DataType.UNDEFINED else dtype
    fill = scalar_as(ctx, value, dtype)
    values = np.full(x.values.shape, fill, dtype=dtype.to_numpy())
    return with_values(x, values, dtype)


@register_sparse("full_like_coo", FULL_LIKE_DTYPES, {"x": COO},
                 {0: {"dtype": DataType.ALL_DTYPE}})
def full_like_coo(ctx, x: Sparse, value: Scalar, dtype: DataType) -> Sparse:
    """x's points, every value ``value`` in ``dtype`` (UNDEFINED: x's)."""
    return _full_like(ctx, x, value, dtype)


@register_sparse("full_like_csr", FULL_LIKE_DTYPES, {"x": CSR},
                 {0: {"dtype": DataType.ALL_DTYPE}})
def full_like_csr(ctx, x: Sparse, value: Scalar, dtype: DataType) -> Sparse:
    """x's structure, every value ``value`` in ``dtype`` (UNDEFINED: x's)."""
    return _full_like(ctx, x, value, dtype)


@register_sparse("coo_to_dense", CONVERT_DTYPES, {"x": COO})
def coo_to_dense(ctx, x: Sparse) -> Tensor:
    """The dense array (repeated points summed)."""
    return x.to_dense()


@register_sparse("csr_to_dense", CONVERT_DTYPES, {"x": CSR})
def csr_to_dense(ctx, x: Sparse) -> Tensor:
    """The dense array."""
    return x.to_dense()


@register_sparse("dense_to_coo", DENSE_TO_DTYPES, outputs={})
def dense_to_coo(ctx, x: Tensor, sparse_dim: Int64) -> Sparse:
    """A coalesced COO tensor of the non-zeros over the first ``sparse_dim`` dimensions."""
    return coo_from_dense(np.asarray(x), int(sparse_dim))


@register_sparse("dense_to_csr", DENSE_TO_DTYPES, outputs={})
def dense_to_csr(ctx, x: Tensor) -> Sparse:
    """A CSR tensor of the non-zeros of a 2-D or 3-D array."""
    return csr_from_dense(np.asarray(x))


@register_sparse("coo_to_csr", CONVERT_DTYPES, {"x": COO})
def coo_to_csr(ctx, x: Sparse) -> Sparse:
    """CSR of a 2-D / 3-D COO tensor whose dimensions are all sparse."""
    return coo_to_csr_tensor(x)


@register_sparse("csr_to_coo", CONVERT_DTYPES, {"x": CSR})
def csr_to_coo(ctx, x: Sparse, sparse_dim: Int64) -> Sparse:
    """COO of a CSR tensor (``sparse_dim`` must be its rank)."""
    if int(sparse_dim) != len(x.dense_shape):
        raise InvalidArgument(f"csr_to_coo: sparse_dim must be the rank "
                              f"{len(x.dense_shape)} of the CSR tensor, got {sparse_dim}.")
    return csr_to_coo_tensor(x)


@register_sparse("values_coo", CONVERT_DTYPES, {"x": COO})
def values_coo(ctx, x: Sparse) -> Tensor:
    """The values [nnz, *dense dims], as stored."""
    return x.values.copy()


@register_sparse("values_csr", CONVERT_DTYPES, {"x": CSR})
def values_csr(ctx, x: Sparse) -> Tensor:
    """The values [nnz], as stored."""
    return x.values.copy()


@register_sparse("indices_coo", DENSE_TO_DTYPES, {"x": COO},
                 {0: {"dtype": DataType.ALL_DTYPE}})
def indices_coo(ctx, x: Sparse) -> Tensor:
    """The indices [sparse_dim, nnz], as stored."""
    return np.asarray(x.indices).copy()


@register_sparse("coalesce_coo", COALESCE_DTYPES, {"x": COO})
def coalesce_coo(ctx, x: Sparse) -> Sparse:
    """Points sorted row-major, repeated points summed."""
    indices, values = coalesce_arrays(np.asarray(x.indices), x.values,
                                      x.dense_shape[:x.sparse_dim])
    return SparseCooTensor(indices, values, x.dense_shape, True, x.dtype, x.place)



# -- grads (Paddle's sparse_utils_grad_kernel, sparse_backward.yaml) -------------------------

@register_sparse("values_coo_grad", NO_HALF_DTYPES, {"x": COO})
def values_coo_grad(ctx, x: Sparse, out_grad: Tensor) -> Sparse:
    """x's points with out_grad as their values."""
    return with_values(x, np.asarray(out_grad).copy())


@register_sparse("coo_to_dense_grad", NO_HALF_DTYPES,
                 {"x": COO})
def coo_to_dense_grad(ctx, x: Sparse, out_grad: Tensor) -> Sparse:
    """out_grad read at x's points (Paddle's SparseMaskKernel)."""
    dense = np.asarray(out_grad)
    idx = tuple(np.asarray(x.indices)[i] for i in range(x.sparse_dim))
    return with_values(x, dense[idx].copy())


@register_sparse("sparse_coo_tensor_grad", ["float32", "float64", "int16", "int32", "int64",
                                            "uint8"],
                 {"indices": DENSE_ANY, "out_grad": COO})
def sparse_coo_tensor_grad(ctx, indices: Tensor, out_grad: Sparse) -> Tensor:
    """values_grad: out_grad's value at each of ``indices``' points, zero where out_grad has
    none (Paddle's MaskHelper)."""
    from phi.kernels.sparse.funcs import linear_index

    idx = np.asarray(indices)
    sdims = out_grad.dense_shape[:out_grad.sparse_dim]
    want = linear_index(idx, sdims)
    have = linear_index(np.asarray(out_grad.indices), sdims)
    table = {int(v): i for i, v in enumerate(have)}
    gv = np.asarray(out_grad.values)
    out = np.zeros((want.size, *gv.shape[1:]), dtype=gv.dtype)
    for i, v in enumerate(want):
        j = table.get(int(v))
        if j is not None:
            out[i] = gv[j]
    return out


@register_sparse("empty_like_coo", NO_HALF_DTYPES, {"x": COO})
def empty_like_coo(ctx, x: Sparse) -> Sparse:
    """x's points, values allocated (zeros here; Paddle leaves them unset)."""
    return with_values(x, np.zeros_like(x.values))


@register_sparse("empty_like_csr", NO_HALF_DTYPES, {"x": CSR})
def empty_like_csr(ctx, x: Sparse) -> Sparse:
    """x's structure, values allocated (zeros here; Paddle leaves them unset)."""
    return with_values(x, np.zeros_like(x.values))


@register_sparse("mask_coo", NO_HALF_DTYPES, {"mask": COO})
def mask_coo(ctx, x: Tensor, mask: Sparse) -> Sparse:
    """A dense x read at mask's points (Paddle's SparseMaskKernel)."""
    dense = np.asarray(x)
    idx = tuple(np.asarray(mask.indices)[i] for i in range(mask.sparse_dim))
    return SparseCooTensor(np.asarray(mask.indices).copy(), dense[idx].copy(),
                           mask.dense_shape, mask.coalesced)


@register_sparse("mask_helper_coo", ["float32", "float64", "int16", "int32", "int64", "uint8"],
                 {"x": COO, "mask_indices": DENSE_ANY})
def mask_helper_coo(ctx, x: Sparse, mask_indices: Tensor) -> Tensor:
    """x's values at the points of ``mask_indices`` (zeros where x has none)."""
    return sparse_coo_tensor_grad(ctx, mask_indices, x)
