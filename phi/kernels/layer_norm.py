"""The ``layer_norm`` and ``layer_norm_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, jit, prod, quiet
from phi.kernels.funcs.norm import apply_affine, centered_grad

__all__ = ["layer_norm", "layer_norm_grad"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
NORM_DTYPES = ["float32", "float64"]
_STATS_UNDEFINED = {1: {"dtype": DataType.UNDEFINED}, 2: {"dtype": DataType.UNDEFINED}}


@register_kernel("layer_norm", ("CPU", "GPU"), dtypes=NORM_DTYPES, output_defs=_STATS_UNDEFINED)
def layer_norm(ctx, x: Tensor, scale: Tensor | None, bias: Tensor | None, epsilon: float,
               begin_norm_axis: int) -> tuple[Tensor, Tensor, Tensor]:
    """(y, mean, variance): x normalized over the dims from ``begin_norm_axis`` on, then
    scaled and shifted by the flattened scale / bias; mean and variance have the leading
    dims x.dims[:begin_norm_axis].  float32 / float64 numpy arrays go to the compiled loop when
    its ahead-of-time build is there (``jit.built``): the same bits in one call."""
    xp = ctx.xp
    t = x.dtype.type
    left = 1
    for d in x.shape[:begin_norm_axis]:
        left *= d
    right = 1
    for d in x.shape[begin_norm_axis:]:
        right *= d
    lead = tuple(x.shape[:begin_norm_axis])
    if right and type(x) is np.ndarray and x.dtype in jit.DTYPES:
        out = _layer_norm_compiled(x, scale, bias, epsilon, left, right, lead)
        if out is not None:
            return out
    if right and xp is np:  # the operations below, in the same order, in place (np.mean is
        # add.reduce / n; array methods skip np.reshape's wrapper, which dominates tiny rows)
        # C order: add.reduce sums a contiguous row pairwise, a strided one element by element
        # (the compiled loop's bits whatever x's layout)
        rows = np.ascontiguousarray(x).reshape(left, right)
        with quiet(xp):
            mean = np.add.reduce(rows, axis=1, keepdims=True)
            mean /= right
            y = rows - mean
            var = np.add.reduce(y * y, axis=1, keepdims=True)
            var /= right
            std = var + t(epsilon)
            np.sqrt(std, out=std)
            y /= std
            if scale is not None:
                y *= scale.reshape(1, -1)
            if bias is not None:
                y += bias.reshape(1, -1)
        return y.reshape(x.shape), mean.reshape(lead), var.reshape(lead)
    rows = xp.reshape(x, (left, right))  # explicit: -1 is ambiguous for an empty x
    with quiet(xp):
        mean = xp.mean(rows, axis=1, keepdims=True)
        var = xp.mean((rows - mean) ** 2, axis=1, keepdims=True)
        y = (rows - mean) / xp.sqrt(var + t(epsilon))
        y = apply_affine(xp, y, scale, bias, (1, -1))
    return (as_array(xp, xp.reshape(y, x.shape)), xp.reshape(mean, lead),
            xp.reshape(var, lead))


def _layer_norm_compiled(x, scale, bias, epsilon, left, right, lead):
    """layer_norm by the compiled loop (``_jit_loops.layer_norm``: the numpy path's operations,
    the same bits) when its ahead-of-time build is there (``jit.built``) and scale / bias are
    x's dtype and size; else None."""
    loops = jit.built()
    if loops is None:
        return None
    dtype = x.dtype
    params = []
    affine = 0
    for bit, p in ((1, scale), (2, bias)):
        if p is None:
            params.append(np.empty(0, dtype))
            continue
        if type(p) is not np.ndarray or p.dtype != dtype or p.size != right:
            return None
        params.append(jit.contiguous(p).reshape(right))
        affine |= bit
    y = np.empty(x.shape, dtype)
    mean = np.empty(lead, dtype)
    variance = np.empty(lead, dtype)
    loops.layer_norm(jit.contiguous(x).reshape(left, right), *params, epsilon,
                     y.reshape(left, right), mean.reshape(left), variance.reshape(left), affine)
    return y, mean, variance


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json): float and double
NORM_GRAD_DTYPES = ["float32", "float64"]


@register_kernel("layer_norm_grad", ("CPU", "GPU"), dtypes=NORM_GRAD_DTYPES)
def layer_norm_grad(ctx, x: Tensor, scale: Tensor | None, bias: Tensor | None, mean: Tensor,
                    variance: Tensor, y_grad: Tensor, epsilon: float, begin_norm_axis: int
                    ) -> tuple[Tensor, Tensor, Tensor]:
    """(dx, dscale, dbias) of layer_norm: rows x.dims[:begin_norm_axis] normalized over the
    rest; dscale / dbias (flattened features) only where Scale / Bias are given."""
    xp = ctx.xp
    t = x.dtype.type
    left = prod(x.shape[:begin_norm_axis])
    right = prod(x.shape[begin_norm_axis:])
    rows = xp.reshape(x, (left, right))
    dy = xp.reshape(y_grad, (left, right))
    with quiet(xp):
        s = t(1) / xp.sqrt(xp.reshape(variance, (left, 1)) + t(epsilon))
        xhat = (rows - xp.reshape(mean, (left, 1))) * s
        g = dy * xp.reshape(scale, (1, right)) if scale is not None else dy
        dx = centered_grad(xp, g, xhat, s, (1,)) if left else xp.zeros_like(rows)
    dscale = xp.sum(dy * xhat, axis=0).astype(scale.dtype) if scale is not None else None
    dbias = xp.sum(dy, axis=0).astype(bias.dtype) if bias is not None else None
    return xp.reshape(dx, x.shape).astype(x.dtype), dscale, dbias
