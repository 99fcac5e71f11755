"""layer_norm, instance_norm, group_norm (Paddle's paddle/phi/kernels/cpu/{layer_norm,
instance_norm,group_norm}_kernel.cc).

Statistics are computed in x's dtype with biased variances.  layer_norm and instance_norm take
the variance as the mean squared deviation; group_norm as E[x^2] - E[x]^2 clamped at 0, as its
CPU kernel does.  Saved statistics: layer_norm and group_norm save the variance, instance_norm
the inverse standard deviation 1 / sqrt(var + epsilon) (SavedVariance).
"""

from __future__ import annotations

import numpy as np
from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import jit
from phi.kernels.funcs import as_array, prod, quiet

__all__ = ["group_norm", "instance_norm", "layer_norm"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
NORM_DTYPES = ["float32", "float64"]
_STATS_UNDEFINED = {1: {"dtype": DataType.UNDEFINED}, 2: {"dtype": DataType.UNDEFINED}}


def _affine(xp, y, scale, bias, shape):
    if scale is not None:
        y = y * xp.reshape(scale, shape)
    if bias is not None:
        y = y + xp.reshape(bias, shape)
    return y


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
        y = _affine(xp, y, scale, bias, (1, -1))
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


@register_kernel("instance_norm", ("CPU", "GPU"), dtypes=NORM_DTYPES)
def instance_norm(ctx, x: Tensor, scale: Tensor | None, bias: Tensor | None,
                  epsilon: float) -> tuple[Tensor, Tensor, Tensor]:
    """(y, saved_mean, saved_inv_std): each (sample, channel) plane normalized, then scaled
    and shifted per channel; the statistics are [N * C]."""
    xp = ctx.xp
    t = x.dtype.type
    n, c = x.shape[0], x.shape[1]
    planes = xp.reshape(x, (n, c, prod(x.shape[2:])))  # explicit: -1 fails on empty x
    with quiet(xp):
        mean = xp.mean(planes, axis=2, keepdims=True)
        var = xp.mean((planes - mean) ** 2, axis=2, keepdims=True)
        inv_std = t(1) / xp.sqrt(var + t(epsilon))
        y = _affine(xp, (planes - mean) * inv_std, scale, bias, (1, c, 1))
    return (as_array(xp, xp.reshape(y, x.shape)), xp.reshape(mean, (n * c,)),
            xp.reshape(inv_std, (n * c,)))


@register_kernel("group_norm", ("CPU", "GPU"), dtypes=NORM_DTYPES)
def group_norm(ctx, x: Tensor, scale: Tensor | None, bias: Tensor | None, epsilon: float,
               groups: int, data_layout: str) -> tuple[Tensor, Tensor, Tensor]:
    """(y, mean, variance): channels split into ``groups``, each (sample, group) normalized,
    then scaled and shifted per channel; the statistics are [N, groups]."""
    xp = ctx.xp
    t = x.dtype.type
    channel_last = data_layout == "NHWC"
    xc = xp.moveaxis(x, -1, 1) if channel_last else x
    n, c = xc.shape[0], xc.shape[1]
    grouped = xp.reshape(xc, (n, groups, prod(xc.shape[1:]) // max(groups, 1)))
    with quiet(xp):
        mean = xp.mean(grouped, axis=2, keepdims=True)
        var = xp.maximum(xp.mean(grouped * grouped, axis=2, keepdims=True) - mean * mean, t(0))
        y = (grouped - mean) / xp.sqrt(var + t(epsilon))
        y = _affine(xp, xp.reshape(y, (n, c, prod(xc.shape[2:]))), scale, bias, (1, c, 1))
    y = xp.reshape(y, xc.shape)
    if channel_last:
        y = xp.moveaxis(y, 1, -1)
    return (as_array(xp, xp.asarray(y, copy=True)), xp.reshape(mean, (n, groups)),
            xp.reshape(var, (n, groups)))
