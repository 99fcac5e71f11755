"""Activation-like kernels of the vision models: hardswish, log_softmax, dropout, prelu (Paddle's
paddle/phi/kernels/cpu/{activation,log_softmax,dropout,prelu}_kernel.cc,
funcs/activation_functor.h).
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import COMPLEX, as_array, bf16_op, owned, quiet, to_bfloat16

__all__ = ["dropout", "hardswish", "log_softmax", "prelu"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
HARDSWISH_DTYPES = ["float32", "float64", "complex64", "complex128"]
LOG_SOFTMAX_DTYPES = ["float32", "float64"]
DROPOUT_DTYPES = ["float32", "float64", "bfloat16"]

# hard_swish's threshold/scale/offset are fixed in 2.6.2's kernel (the legacy attributes are
# not in its KernelSignature)
_THRESHOLD, _SCALE, _OFFSET = 6.0, 6.0, 3.0


@register_kernel("hardswish", ("CPU", "GPU"), dtypes=HARDSWISH_DTYPES)
def hardswish(ctx, x: Tensor) -> Tensor:
    """min(max(x + 3, 0), 6) * x / 6 in x's dtype (HardSwishFunctor).

    Complex values compare by their real parts, as phi::complex's operator< does.
    """
    xp = ctx.xp
    dtype = ctx.data_type(x)
    offset = ctx.asarray(_OFFSET, dtype)
    zero = ctx.asarray(0, dtype)
    threshold = ctx.asarray(_THRESHOLD, dtype)
    with quiet(xp):
        shifted = x + offset
        if dtype in COMPLEX:
            # std::max(a, 0) = a < 0 ? 0 : a; std::min(a, 6) = 6 < a ? 6 : a
            clipped = xp.where(xp.real(shifted) < 0, zero, shifted)
            clipped = xp.where(xp.real(clipped) > _THRESHOLD, threshold, clipped)
        else:
            clipped = xp.minimum(xp.maximum(shifted, zero), threshold)
        return as_array(xp, clipped * x / ctx.asarray(_SCALE, dtype))


@register_kernel("log_softmax", ("CPU", "GPU"), dtypes=LOG_SOFTMAX_DTYPES)
def log_softmax(ctx, x: Tensor, axis: int) -> Tensor:
    """(x - max) - log(sum(exp(x - max))) along ``axis``, the shifted logits clipped at -64 as
    Paddle's LogSoftmaxFunctor does (ValueClip: -inf gives -64 - log(sum), checked with the
    wheel); a 0-D input gives 0."""
    xp = ctx.xp
    if x.ndim == 0:
        return xp.zeros((), dtype=x.dtype)
    if x.size == 0:
        return owned(xp, x)
    axis = axis + x.ndim if axis < 0 else axis
    with quiet(xp):
        shifted = x - xp.max(x, axis=axis, keepdims=True)
        clip = x.dtype.type(-64.0)
        shifted = xp.where(shifted < clip, clip, shifted)  # NaN passes through
        return as_array(xp, shifted - xp.log(xp.sum(xp.exp(shifted), axis=axis,
                                                     keepdims=True)))


def _dropout_mask(ctx, shape, p: float, seed_tensor, seed: int, fix_seed: bool):
    """Keep-mask (uint8, 1 = kept) drawn with P(drop) = p, as Paddle draws it: one
    std::uniform_real_distribution<float>(0, 1) value per element from an mt19937_64 seeded
    with the Seed tensor, else ``seed`` when ``fix_seed``, else the process-wide generator
    (phi/kernels/funcs/cpu_random.py): with a seed, Paddle's own mask."""
    from phi.kernels.funcs.cpu_random import engine_for, uniform_real

    xp = ctx.xp
    seed_data = 0
    if seed_tensor is not None:
        seed_data = int(np.asarray(ctx.to_host(seed_tensor)).reshape(-1)[0])
    elif fix_seed:
        seed_data = seed
    n = int(np.prod(shape, dtype=np.int64))
    uniform = uniform_real(engine_for(seed_data), n, 0.0, 1.0, np.float32).reshape(tuple(shape))
    keep = (uniform >= np.float32(p)).astype(np.uint8)
    return ctx.from_host(keep) if xp is not np else keep


@register_kernel("dropout", ("CPU", "GPU"), dtypes=DROPOUT_DTYPES,
                 input_defs={"seed_tensor": {"dtype": DataType.ALL_DTYPE}},
                 output_defs={1: {"dtype": DataType.UINT8}})
def dropout(ctx, x: Tensor, seed_tensor: Tensor | None, p: Scalar, is_test: bool, mode: str,
            seed: int, fix_seed: bool) -> tuple[Tensor, Tensor]:
    """(out, mask).  Test mode: ``upscale_in_train`` passes x through, otherwise (Paddle's
    ``downgrade_in_infer``) out = x * (1 - p); the mask, unwritten by Paddle, is zeros.
    Training: dropped elements are 0 and mask 0; kept ones are x, divided by (1 - p) under
    ``upscale_in_train``."""
    if is_test and type(x) is np.ndarray and mode == "upscale_in_train":  # inference's case
        return x.copy(), np.zeros(x.shape, np.uint8)
    xp = ctx.xp
    dtype = ctx.data_type(x)
    prob = np.float32(p.value if isinstance(p, Scalar) else p)  # p.to<float>()
    upscale = mode == "upscale_in_train"
    keep_scale = np.float32(1.0) - prob  # static_cast<T>(1.0f - dropout_prob)
    if is_test:
        mask = xp.zeros(x.shape, dtype=xp.uint8)
        if upscale:
            return owned(xp, x), mask
        factor = ctx.asarray(float(keep_scale), DataType.FLOAT32)
        if dtype is DataType.BFLOAT16:
            factor = to_bfloat16(ctx, factor)
            return bf16_op(ctx, lambda a, b: a * b, x, factor), mask
        return as_array(xp, x * ctx.astype(factor, dtype)), mask
    if prob == np.float32(1.0):
        return xp.zeros_like(x), xp.zeros(x.shape, dtype=xp.uint8)
    mask = _dropout_mask(ctx, x.shape, float(prob), seed_tensor, seed, fix_seed)
    kept = mask != 0
    zero = xp.zeros((), dtype=x.dtype)
    if not upscale:
        return xp.where(kept, x, zero), mask
    factor = ctx.asarray(float(keep_scale), DataType.FLOAT32)
    if dtype is DataType.BFLOAT16:
        scaled = bf16_op(ctx, lambda a, b: a / b, x, to_bfloat16(ctx, factor))
    else:
        with quiet(xp):
            scaled = x / ctx.astype(factor, dtype)
    return xp.where(kept, scaled, zero), mask


@register_kernel("prelu", ("CPU", "GPU"), dtypes=["float32", "float64"])
def prelu(ctx, x: Tensor, alpha: Tensor, data_format: str, mode: str) -> Tensor:
    """x > 0 ? x : alpha * x, alpha per ``mode``: one value ('all'), one per channel
    ('channel', axis 1 for NCHW, the last for NHWC) or one per element of a sample
    ('element', reused across the batch)."""
    xp = ctx.xp
    if mode == "channel":
        shape = [1] * x.ndim
        shape[1 if data_format == "NCHW" else x.ndim - 1] = -1
        a = xp.reshape(alpha, tuple(shape))
    elif mode == "element":
        a = xp.reshape(alpha, (1, *x.shape[1:]))
    else:
        a = xp.reshape(alpha, (-1,))[0]
    with quiet(xp):
        return as_array(xp, xp.where(x > 0, x, a * x))
