"""The softmax kernel (Paddle's paddle/phi/kernels/cpu/softmax_kernel.cc, funcs/softmax_impl.h)."""

from __future__ import annotations

import numpy as np
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import jit
from phi.kernels.funcs import as_array, owned, quiet

__all__ = ["softmax"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
SOFTMAX_DTYPES = ["float32", "float64"]

_CLIP = -64.0


@register_kernel("softmax", ("CPU", "GPU"), dtypes=SOFTMAX_DTYPES)
def softmax(ctx, x: Tensor, axis: int) -> Tensor:
    """exp(x - max) / sum along ``axis``, with Paddle's clip of the shifted logits at -64."""
    xp = ctx.xp
    dtype = ctx.data_type(x)
    if x.ndim == 0:
        return ctx.full((), 1.0, dtype)  # Paddle: softmax of a 0-D tensor is 1
    if x.size == 0:
        return owned(xp, x)
    axis = axis + x.ndim if axis < 0 else axis
    if axis == x.ndim - 1 and type(x) is np.ndarray and x.dtype in jit.DTYPES:
        loops = jit.built()  # (the ahead-of-time build only: module jit)
        if loops is not None:  # the operations below in one compiled call (C library's exp)
            n = x.shape[-1]
            out = np.empty(x.shape, x.dtype)
            loops.softmax(jit.contiguous(x).reshape(-1, n), out.reshape(-1, n),
                          x.dtype.type(_CLIP))
            return out
    with quiet(xp):
        if xp is np:  # the same operations in place, reductions without their wrappers
            if axis == x.ndim - 1:  # C order: each row summed pairwise (module _jit_loops)
                x = np.ascontiguousarray(x)
            shifted = x - np.maximum.reduce(x, axis=axis, keepdims=True)
            # where(shifted < -64, -64, shifted) below: maximum keeps NaN and -0.0 alike
            e = np.maximum(shifted, dtype.to_numpy().type(_CLIP), out=shifted)
            np.exp(e, out=e)
            e *= np.divide(1, np.add.reduce(e, axis=axis, keepdims=True), dtype=e.dtype)
            return e
        shifted = x - xp.max(x, axis=axis, keepdims=True)
        # ValueClip (x < -64 ? -64 : x): a logit more than 64 below the row maximum, -inf
        # included, still gets exp(-64) ~ 1.6e-28 instead of 0; NaN passes through, so a row of
        # -inf only (-inf - -inf = NaN) becomes NaN.  (Paddle's AVX path clips with max_ps,
        # which turns NaN into -64 for float32 rows of 8+ elements: not reproduced.)
        clip = ctx.asarray(_CLIP, dtype)
        e = xp.exp(xp.where(shifted < clip, clip, shifted))
        # multiply by the reciprocal of the sum, as both of Paddle's CPU paths do
        inv = ctx.asarray(1, dtype) / xp.sum(e, axis=axis, keepdims=True)
        return as_array(xp, e * inv)
