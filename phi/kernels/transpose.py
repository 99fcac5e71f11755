"""The ``transpose`` and ``transpose_grad`` kernels."""

from __future__ import annotations

import functools

import numpy as np

from phi.common.layout import DataLayout
from phi.core.bound import binds
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import normalize_perm
from phi.kernels.funcs import ALL_DTYPES, owned
from phi.kernels.funcs.backward import grad_kernel
from phi.kernels.funcs.manipulation import TRANSPOSE_DTYPES, planned_dims

__all__ = ["transpose"]


_perm = functools.lru_cache(maxsize=1024)(normalize_perm)


@register_kernel("transpose", ("CPU", "GPU"), dtypes=TRANSPOSE_DTYPES)
def transpose(ctx, x: Tensor, perm: list[int]) -> Tensor:
    """x with its axes permuted: out.dims[i] = x.dims[perm[i]] (negative entries allowed)."""
    xp = ctx.xp
    return owned(xp, xp.permute_dims(x, _perm(x.ndim, tuple(perm))))


@binds(transpose)
def _bind_transpose(ctx, attrs, metas):
    dims_in = planned_dims(ctx, metas)
    if dims_in is None:
        return None
    (perm,) = attrs
    axes = _perm(len(dims_in), tuple(perm))
    rank = len(dims_in)
    nd = np.ndarray

    def bound(x):
        if type(x) is nd and x.ndim == rank:
            return np.asarray(x.transpose(axes), copy=True)
        return transpose(ctx, x, perm)

    return bound


ALL12 = list(ALL_DTYPES)


# Paddle also registers the view-like grads for the STRIDED layout (every dtype)
STRIDED = DataLayout.STRIDED


@grad_kernel("transpose_grad", ("CPU", "GPU"), dtypes=ALL12)
@grad_kernel("transpose_grad", ("CPU", "GPU"), dtypes=ALL12, layout=STRIDED)
def transpose_grad(ctx, out_grad: Tensor, axis: list[int]) -> Tensor:
    """out_grad permuted back by the inverse of ``axis``."""
    xp = ctx.xp
    perm = [a % max(out_grad.ndim, 1) for a in axis]
    return owned(xp, xp.permute_dims(out_grad, tuple(int(i) for i in np.argsort(perm))))
