"""Sparse 3-D max pooling of a COO tensor (Paddle's phi/kernels/sparse/pool_kernel.h,
cpu/pool_kernel.cc): the rulebook of a (non-submanifold) convolution with ``kernel_sizes``,
then each output point takes, per channel, the largest value among the input points paired
with it (the first pair copies, later ones keep the maximum): absent points do not count as
zeros."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.sparse_tensor import SparseCooTensor
from phi.core.kernel import Tensor
from phi.kernels.sparse.conv import product_rulebook
from phi.kernels.sparse.funcs import COO, Sparse, register_sparse

__all__ = ["maxpool_coo", "maxpool_coo_grad"]

DTYPES = ["float32", "float64"]


@register_sparse("maxpool_coo", DTYPES, {"x": COO},
                 {1: {"dtype": DataType.ALL_DTYPE}, 2: {"dtype": DataType.INT32}})
def maxpool_coo(ctx, x: Sparse, kernel_sizes: list[int], paddings: list[int],
                dilations: list[int], strides: list[int]) -> tuple[Sparse, Tensor, Tensor]:
    """Max over the paired input points per output point: (out, rulebook, counter)."""
    out_indices, out_sp, rulebook, counter = product_rulebook(
        x, kernel_sizes, paddings, dilations, strides, False, "maxpool_coo")
    c = x.dense_shape[-1]
    values = np.asarray(x.values).reshape(-1, c)
    out = np.full((out_indices.shape[1], c), -np.inf, dtype=values.dtype)
    # rulebook order is kernel offset first: maximum.at visits pairs in that order
    np.maximum.at(out, rulebook[2], values[rulebook[1]])
    return (SparseCooTensor(out_indices, out, (*out_sp, c), True, x.dtype, x.place),
            rulebook, counter)


@register_sparse("maxpool_coo_grad", DTYPES,
                 {"x": COO, "out": COO, "out_grad": COO, "rulebook": {"dtype": DataType.ALL_DTYPE},
                  "counter": {"dtype": DataType.INT32}})
def maxpool_coo_grad(ctx, x: Sparse, rulebook: Tensor, counter: Tensor, out: Sparse,
                     out_grad: Sparse, kernel_sizes: list[int]) -> Sparse:
    """x_grad (x's points): per pair (in, out) and channel, out_grad where x equals the
    output's maximum (every tied input gets it, as Paddle's MaxPoolGrad compares each pair)."""
    c = x.dense_shape[-1]
    rulebook = np.asarray(rulebook)
    xv = np.asarray(x.values).reshape(-1, c)
    ov = np.asarray(out.values).reshape(-1, c)
    dout = np.asarray(out_grad.values).reshape(-1, c)
    ins, outs = rulebook[1], rulebook[2]
    dx = np.zeros_like(xv)
    np.add.at(dx, ins, np.where(xv[ins] == ov[outs], dout[outs], 0).astype(xv.dtype))
    return SparseCooTensor(np.asarray(x.indices).copy(), dx, x.dense_shape, x.coalesced,
                           x.dtype, x.place)
