"""The ``dropout``, ``dropout_grad``, ``dropout_nd`` and ``dropout_nd_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, bf16_op, owned, quiet, to_bfloat16
from phi.kernels.funcs.common import shape_numel

__all__ = ["dropout", "dropout_nd"]


DROPOUT_DTYPES = ["float32", "float64", "bfloat16"]


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


_FLOATS = ["float32", "float64"]


@register_kernel("dropout_nd", "CPU", dtypes=_FLOATS,
                 input_defs={"seed_tensor": {"dtype": DataType.ALL_DTYPE}},
                 output_defs={1: {"dtype": DataType.UINT8}})
def dropout_nd(ctx, x: Tensor, seed_tensor: Tensor | None, p: Scalar, is_test: bool,
               mode: str, seed: int, fix_seed: bool, axis: list[int]) -> tuple[Tensor, Tensor]:
    """Dropout whose mask is shared along the dims not in ``axis`` (mask dims: x's on ``axis``,
    1 elsewhere), drawn like dropout's."""
    prob = np.float32(p.value)
    upscale = mode == "upscale_in_train"
    keep_scale = np.float32(1.0) - prob
    ndim = x.ndim
    axes = {a + ndim if a < 0 else a for a in axis}
    mask_dims = tuple(d if i in axes else 1 for i, d in enumerate(x.shape))
    if is_test:
        out = x.copy() if upscale else (x * x.dtype.type(keep_scale)).astype(x.dtype)
        return out, np.zeros(mask_dims, np.uint8)
    if prob == np.float32(1.0):
        return np.zeros_like(x), np.zeros(mask_dims, np.uint8)
    seed_data = 0
    if seed_tensor is not None:
        seed_data = int(np.asarray(seed_tensor).reshape(-1)[0])
    elif fix_seed:
        seed_data = seed
    from phi.kernels.funcs.cpu_random import engine_for, uniform_real  # dropout's, as above

    u = uniform_real(engine_for(seed_data), shape_numel(mask_dims), 0.0, 1.0, np.float32)
    mask = (u.reshape(mask_dims) >= prob).astype(np.uint8)
    kept = np.broadcast_to(mask, x.shape) != 0
    value = x / x.dtype.type(keep_scale) if upscale else x
    return np.where(kept, value, x.dtype.type(0)).astype(x.dtype), mask


# Paddle 2.6.2 CPU registrations of the grad kernels (corpus phi_kernels.json)
FLOATS = ["float32", "float64"]


DROPOUT_GRAD_DTYPES = ["bfloat16", "float32", "float64"]
_ANY = {"dtype": DataType.ALL_DTYPE}  # labels and masks keep their own dtypes


def _dropout_backward(ctx, mask, out_grad, p, is_test: bool, mode: str, cyclic: bool):
    """DropoutNdGradKernel: ``cyclic``: the mask of dropout_nd, read as Eigen's broadcast of
    the flattened mask does, element i using mask[i % mask.size]."""
    xp = ctx.xp
    dtype = ctx.data_type(out_grad)
    prob = np.float32(p.value if isinstance(p, Scalar) else p)
    keep = np.float32(1.0) - prob  # static_cast<T>(1.0f - prob)
    upscale = mode == "upscale_in_train"
    if is_test:
        m = None
        scale = None if upscale else keep
    else:
        flat = mask.reshape(-1)
        if cyclic and flat.size and flat.size != out_grad.size:
            flat = flat[xp.arange(out_grad.size) % flat.size]
        m = flat.reshape(out_grad.shape)
        scale = None if not upscale else keep
        if upscale and prob == np.float32(1.0):
            m, scale = xp.zeros_like(m), None

    def fn(dy, *rest):
        r = dy
        if m is not None:
            r = r * ctx.astype(m, ctx.data_type(dy))
        if scale is not None:
            s = xp.asarray(scale, dtype=dy.dtype)
            r = r * s if is_test else r / s
        return r

    if dtype is DataType.BFLOAT16:
        return bf16_op(ctx, fn, out_grad)
    with quiet(xp):
        return as_array(xp, fn(out_grad))


@register_kernel("dropout_grad", ("CPU", "GPU"), dtypes=DROPOUT_GRAD_DTYPES,
                 input_defs={"mask": _ANY})
def dropout_grad(ctx, mask: Tensor, out_grad: Tensor, p: Scalar, is_test: bool, mode: str
                 ) -> Tensor:
    """Training: dout * mask (/ (1 - p) for ``upscale_in_train``, 0 when p is 1); test:
    dout, or dout * (1 - p) for ``downgrade_in_infer``."""
    return _dropout_backward(ctx, mask, out_grad, p, is_test, mode, cyclic=False)


@register_kernel("dropout_nd_grad", ("CPU", "GPU"), dtypes=FLOATS, input_defs={"mask": _ANY})
def dropout_nd_grad(ctx, mask: Tensor, out_grad: Tensor, p: Scalar, is_test: bool, mode: str,
                    axis: list[int]) -> Tensor:
    """dropout_grad with the mask of the kept ``axis`` dims; Paddle reads that smaller mask
    cyclically over the flattened gradient (its Eigen broadcast of a flat vector), not
    broadcast by dims: reproduced."""
    return _dropout_backward(ctx, mask, out_grad, p, is_test, mode, cyclic=bool(axis))
