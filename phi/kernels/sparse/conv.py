"""Sparse 3-D convolution of a COO tensor (Paddle's phi/kernels/sparse/conv_kernel.h,
cpu/conv_kernel.cc, cpu/conv.h ProductRuleBook / UpdateRulebookAndOutIndex).

x: COO ``[N, D, H, W, C]`` with sparse_dim 4 (points (n, d, h, w), values ``[nnz, C]``);
kernel: dense ``[kd, kh, kw, C, M]``.  The rulebook pairs each kernel offset (row-major over
kd, kh, kw: the outer loop) with each input point (the inner loop, in storage order) whose
output position ``(in + padding - k * dilation) / stride`` is whole and inside the output.
Submanifold (``subm``): the output points are the input's, in the input's order, and a pair
counts only where its output position is an input point.  Otherwise the output points are the
distinct output positions, sorted row-major (Paddle keeps them in a std::set of linear
indices).  The output values: zeros, then per kernel offset (in order) ``in_values[pairs] @
kernel[offset]`` added at the pairs' output points.  ``rulebook`` is ``[3, pairs]`` (kernel
offset, input point, output point) in the indices' dtype and ``counter`` the int32 pairs per
offset, as Paddle returns them.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.sparse_tensor import SparseCooTensor
from phi.kernels.sparse.funcs import COO, Sparse, linear_index, register_sparse, unravel

__all__ = ["conv3d_coo", "conv3d_coo_grad", "conv_out_dims", "product_rulebook"]

DTYPES = ["float32", "float64"]


def conv_out_dims(in_dims, kernel_sizes, paddings, dilations, strides):
    """Paddle's GetOutShape: (in + 2p - d (k - 1) - 1) / s + 1 per spatial dimension."""
    return [(i + 2 * p - d * (k - 1) - 1) // s + 1
            for i, k, p, d, s in zip(in_dims, kernel_sizes, paddings, dilations, strides,
                                     strict=True)]


def _triple(values, what: str, op: str):
    values = [int(v) for v in values]
    if len(values) == 1:
        values = values * 3
    if len(values) != 3:
        raise InvalidArgument(f"{op}: {what} must hold 3 values (d, h, w), got {values}.")
    return values


def product_rulebook(x: SparseCooTensor, kernel_sizes, paddings, dilations, strides,
                     subm: bool, op: str):
    """(out indices [4, out_nnz], out dims, rulebook [3, pairs], counter [kernel volume])."""
    if x.sparse_dim != 4 or len(x.dense_shape) != 5:
        raise InvalidArgument(f"{op}: x must be a 5-D COO tensor [N, D, H, W, C] with "
                              f"sparse_dim 4, got shape {list(x.dense_shape)} and sparse_dim "
                              f"{x.sparse_dim}.")
    n, d, h, w, _ = x.dense_shape
    ks = _triple(kernel_sizes, "kernel sizes", op)
    pads = _triple(paddings, "paddings", op)
    dils = _triple(dilations, "dilations", op)
    strs = _triple(strides, "strides", op)
    out_sp = [d, h, w] if subm else conv_out_dims([d, h, w], ks, pads, dils, strs)
    if min(out_sp) <= 0:
        raise InvalidArgument(f"{op}: the output's spatial dimensions {out_sp} must be "
                              "positive.")
    idx = np.asarray(x.indices, dtype=np.int64)
    coords = idx[1:4]  # (d, h, w) of every input point
    in_lin = linear_index(idx, (n, d, h, w)) if subm else None
    if subm:
        order = np.argsort(in_lin, kind="stable")
        sorted_lin = in_lin[order]
    k_ids, in_ids, out_lin = [], [], []
    counter = np.zeros(ks[0] * ks[1] * ks[2], dtype=np.int32)
    offset = 0
    for kz in range(ks[0]):
        for ky in range(ks[1]):
            for kx in range(ks[2]):
                koff = np.array([kz, ky, kx], dtype=np.int64)[:, None]
                num = coords + np.asarray(pads)[:, None] - koff * np.asarray(dils)[:, None]
                st = np.asarray(strs)[:, None]
                ok = np.all(num >= 0, axis=0) & np.all(num % st == 0, axis=0)
                out_c = num // st
                ok &= np.all(out_c < np.asarray(out_sp)[:, None], axis=0)
                sel = np.nonzero(ok)[0]
                lin = linear_index(np.concatenate([idx[:1, sel], out_c[:, sel]]),
                                   (n, *out_sp))
                if subm:  # the output point must be an input point
                    pos = np.searchsorted(sorted_lin, lin)
                    pos = np.minimum(pos, max(len(sorted_lin) - 1, 0))
                    hit = (sorted_lin[pos] == lin) if len(sorted_lin) else np.zeros(0, bool)
                    sel, lin = sel[hit], order[pos[hit]]
                counter[offset] = sel.size
                k_ids.append(np.full(sel.size, offset, dtype=np.int64))
                in_ids.append(sel.astype(np.int64))
                out_lin.append(lin.astype(np.int64))
                offset += 1
    k_ids, in_ids, out_lin = (np.concatenate(a) for a in (k_ids, in_ids, out_lin))
    if subm:
        out_indices = idx.copy()
        out_ids = out_lin
    else:
        uniq, out_ids = np.unique(out_lin, return_inverse=True)
        out_indices = unravel(uniq, (n, *out_sp))
        out_ids = out_ids.reshape(-1)
    dtype = np.asarray(x.indices).dtype
    rulebook = np.stack([k_ids, in_ids, out_ids]).astype(dtype).reshape(3, -1)
    return out_indices.astype(dtype), [n, *out_sp], rulebook, counter


def gather_gemm_scatter(values, weights, rulebook, out_nnz: int):
    """Zeros, then per kernel offset in order: values[in] @ weights[offset] added at out."""
    kvol = weights.shape[0]
    out = np.zeros((out_nnz, weights.shape[-1]), dtype=values.dtype)
    for k in range(kvol):
        sel = rulebook[0] == k
        if not np.any(sel):
            continue
        part = values[rulebook[1, sel]] @ weights[k]
        np.add.at(out, rulebook[2, sel], part.astype(values.dtype, copy=False))
    return out


@register_sparse("conv3d_coo", DTYPES, {"x": COO},
                 {1: {"dtype": DataType.ALL_DTYPE}, 2: {"dtype": DataType.INT32}})
def conv3d_coo(ctx, x: Sparse, kernel: Tensor, paddings: list[int], dilations: list[int],
               strides: list[int], groups: int, subm: bool, key: str
               ) -> tuple[Sparse, Tensor, Tensor]:
    """Sparse (submanifold) 3-D convolution: (out, rulebook, counter)."""
    op = "conv3d_coo"
    if groups != 1:
        raise InvalidArgument(f"{op}: groups must be 1, got {groups}.")
    kernel = np.asarray(kernel)
    c = x.dense_shape[-1]
    if kernel.ndim != 5 or kernel.shape[3] != c:
        raise InvalidArgument(f"{op}: kernel must be [kd, kh, kw, C={c}, M], got "
                              f"{list(kernel.shape)}.")
    if subm and any(int(s) != 1 for s in strides):
        raise InvalidArgument(f"{op}: a submanifold convolution takes strides of 1, got "
                              f"{list(strides)}.")
    out_indices, out_sp, rulebook, counter = product_rulebook(
        x, kernel.shape[:3], paddings, dilations, strides, subm, op)
    weights = kernel.reshape(-1, c, kernel.shape[-1])
    values = gather_gemm_scatter(np.asarray(x.values).reshape(-1, c), weights, rulebook,
                                 out_indices.shape[1])
    out = SparseCooTensor(out_indices, values, (*out_sp, kernel.shape[-1]), not subm,
                          x.dtype, x.place)
    return out, rulebook, counter


@register_sparse("conv3d_coo_grad", DTYPES,
                 {"x": COO, "out": COO, "out_grad": COO, "rulebook": {"dtype": DataType.ALL_DTYPE},
                  "counter": {"dtype": DataType.INT32}})
def conv3d_coo_grad(ctx, x: Sparse, kernel: Tensor, out: Sparse, rulebook: Tensor,
                    counter: Tensor, out_grad: Sparse, paddings: list[int], dilations: list[int],
                    strides: list[int], groups: int, subm: bool, key: str
                    ) -> tuple[Sparse, Tensor]:
    """(x_grad with x's points, kernel_grad) through the forward's rulebook: per pair
    (offset, in, out) x_grad[in] += out_grad[out] @ kernel[offset]^T and kernel_grad[offset]
    += x[in]^T out_grad[out]."""
    kernel = np.asarray(kernel)
    c, m = kernel.shape[3], kernel.shape[4]
    weights = kernel.reshape(-1, c, m)
    rulebook = np.asarray(rulebook)
    xv = np.asarray(x.values).reshape(-1, c)
    dout = np.asarray(out_grad.values).reshape(-1, m)
    dx = np.zeros_like(xv)
    dw = np.zeros_like(weights)
    for k in range(weights.shape[0]):
        sel = rulebook[0] == k
        if not np.any(sel):
            continue
        ins, outs = rulebook[1, sel], rulebook[2, sel]
        np.add.at(dx, ins, (dout[outs] @ weights[k].T).astype(xv.dtype, copy=False))
        dw[k] = (xv[ins].T @ dout[outs]).astype(xv.dtype, copy=False)
    x_grad = SparseCooTensor(np.asarray(x.indices).copy(), dx, x.dense_shape, x.coalesced,
                             x.dtype, x.place)
    return x_grad, dw.reshape(kernel.shape)
