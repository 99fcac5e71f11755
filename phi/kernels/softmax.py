"""The softmax and gumbel_softmax kernels and their grads (Paddle's
paddle/phi/kernels/cpu/softmax_kernel.cc, funcs/softmax_impl.h)."""

from __future__ import annotations


import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, jit, owned, quiet
from phi.kernels.funcs.common import on_device
from phi.kernels.funcs.softmax import positive_axis, softmax_backward

__all__ = ["gumbel_softmax", "softmax"]


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


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
F = ["float32", "float64"]


# -- gumbel_softmax -----------------------------------------------------------------------------

def _softmax_sum(e: np.ndarray, ax: int) -> np.ndarray:
    """The sums of Paddle's CPU softmax along ``ax`` (keepdims), in its order: on the last axis
    of float32 with 8 or more values, AVX's vec_sum (eight lanes summed block by block, folded
    as ((l0 + l1) + (l4 + l5)) + ((l2 + l3) + (l6 + l7)), then the tail one by one); otherwise
    one value after another."""
    t = e.dtype.type
    rows = np.moveaxis(e, ax, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    n = flat.shape[1]
    if ax == e.ndim - 1 and e.dtype == np.float32 and n >= 8:
        end = n & ~7
        lanes = flat[:, 0:8].copy()
        for j in range(8, end, 8):
            lanes = (lanes + flat[:, j:j + 8]).astype(e.dtype)
        lo = (lanes[:, 0] + lanes[:, 1]) + (lanes[:, 4] + lanes[:, 5])
        hi = (lanes[:, 2] + lanes[:, 3]) + (lanes[:, 6] + lanes[:, 7])
        total = (lo + hi).astype(e.dtype)
        start = end
    else:
        total, start = np.zeros(flat.shape[0], e.dtype), 0
    for j in range(start, n):
        total = (total + flat[:, j]).astype(e.dtype)
    total = total.reshape((*rows.shape[:-1], 1)).astype(t)
    return np.moveaxis(total, -1, ax)


@register_kernel("gumbel_softmax", ("CPU", "GPU"), dtypes=F)
def gumbel_softmax(ctx, x: Tensor, temperature: float, hard: bool, axis: int) -> Tensor:
    """softmax((x + g) / temperature) along axis, g = -log(-log(u)) with u ~ U(1e-5, 1) in x's
    dtype (Paddle's bounds); hard: the one-hot of the softmax's first maximum."""
    if not temperature > 0:
        raise InvalidArgument(f"gumbel_softmax: the temperature must be greater than 0, but "
                              f"received temperature = {temperature}.")
    v = np.asarray(ctx.to_host(x))
    if v.size == 0:
        return on_device(ctx, np.empty(v.shape, v.dtype))
    if v.ndim == 0:  # one class: softmax is 1
        return on_device(ctx, np.ones((), v.dtype))
    if hard and v.ndim > 6:
        raise InvalidArgument("gumbel_softmax operator doesn't supports tensors whose ranks "
                              f"are greater than 6 in CPU mode, but received rank {v.ndim}.")
    ax = axis + v.ndim if axis < 0 else axis
    t = v.dtype.type
    from phi.kernels.funcs.cpu_random import global_engine, uniform_real
    from phi.kernels.funcs.libm import libm_exp, libm_log

    with np.errstate(all="ignore"):
        # std::uniform_real_distribution<T>(0.00001, 1) over the process-wide engine, in x's
        # order; the noise -log(-log(u)); Paddle's CPU softmax: shifted logits clipped at -64,
        # exp, times 1 / sum.  Its logs and exps are Eigen's / the vector library's, here the C
        # library's: they may differ in the last bit
        u = uniform_real(global_engine(), v.size, 1e-5, 1.0, v.dtype).reshape(v.shape)
        y = (v + -libm_log(-libm_log(u))) / t(np.float32(temperature))
        e = libm_exp(np.maximum(y - np.max(y, axis=ax, keepdims=True), t(-64)))
        out = e * (t(1) / _softmax_sum(e, ax))
    if hard:
        idx = np.expand_dims(np.argmax(out, axis=ax), ax)
        out = np.zeros_like(out)
        np.put_along_axis(out, idx, t(1), axis=ax)
    return on_device(ctx, np.asarray(out, dtype=v.dtype))


# Paddle 2.6.2 CPU registrations of the grad kernels (corpus phi_kernels.json)
FLOATS = ["float32", "float64"]


@register_kernel("gumbel_softmax_grad", ("CPU", "GPU"), dtypes=FLOATS)
@register_kernel("softmax_grad", ("CPU", "GPU"), dtypes=FLOATS)
def softmax_grad(ctx, out: Tensor, out_grad: Tensor, axis: int) -> Tensor:
    """out * (dout - sum(dout * out, axis)); a 0-D softmax (constant 1) has gradient 0.  Also
    gumbel_softmax_grad: the softmax gradient of Out (with ``hard``, Out is the one-hot
    sample)."""
    xp = ctx.xp
    if out.ndim == 0:
        return xp.zeros_like(out)
    return softmax_backward(xp, out, out_grad, positive_axis(axis, out.ndim))
