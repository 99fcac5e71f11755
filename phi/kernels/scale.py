"""The scale and increment kernels (Paddle's paddle/phi/kernels/cpu/scale_kernel.cc,
funcs/eigen/scale.cc, cpu/increment_kernel.cc)."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.bound import binds
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, numpy_scalar, quiet, scalar_as, to_half

__all__ = ["scale"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
SCALE_DTYPES = ["bool", "float32", "float64", "bfloat16", "float16", "uint8", "int8", "int16",
                "int32", "int64", "complex64", "complex128"]


_FLOATS = ["float32", "float64"]


@register_kernel("scale", ("CPU", "GPU"), dtypes=_FLOATS)
def scale_float(ctx, x: Tensor, scale: Scalar, bias: float, bias_after_scale: bool) -> Tensor:
    """x * scale + bias (or (x + bias) * scale) in x's float dtype (the common, fast path).

    Python numbers are "weak" in numpy 2 (NEP 50): they are converted to x's dtype and the
    arithmetic stays in it, which is Paddle's scale.to<T>() / static_cast<T>(bias)."""
    s = scale.value
    if type(x) is np.ndarray:  # in place on numpy scalars of x's dtype: the same values
        t = x.dtype
        s, b = numpy_scalar(s, t), numpy_scalar(bias, t)
        if bias_after_scale:
            out = x * s
            out += b
        else:
            out = x + b
            out *= s
        return out if type(out) is np.ndarray else np.asarray(out)  # 0-d: a numpy scalar
    out = x * s + bias if bias_after_scale else (x + bias) * s
    return ctx.xp.asarray(out)


@binds(scale_float)
def _bind_scale_float(ctx, attrs, metas):
    """scale_float with its numpy scalars made once (phi.core.bound)."""
    scale, bias, bias_after_scale = attrs
    if ctx.xp is not np or metas[0] is None:
        return None
    t = metas[0][0].to_numpy()
    s, b = numpy_scalar(scale.value, t), numpy_scalar(bias, t)
    nd = np.ndarray

    if bias_after_scale:
        def bound(x):
            if type(x) is nd and x.dtype is t:
                out = x * s
                if type(out) is nd:  # 0-d: a numpy scalar, the kernel's way
                    out += b
                    return out
            return scale_float(ctx, x, scale, bias, bias_after_scale)

        def inline(out, ins, const):
            return [f"{out} = {ins[0]} * {const(s)}", f"{out} += {const(b)}"]
    else:
        def bound(x):
            if type(x) is nd and x.dtype is t:
                out = x + b
                if type(out) is nd:
                    out *= s
                    return out
            return scale_float(ctx, x, scale, bias, bias_after_scale)

        def inline(out, ins, const):
            return [f"{out} = {ins[0]} + {const(b)}", f"{out} *= {const(s)}"]
    if metas[0][1]:  # an array of the planned dtype and dims (not 0-d): the same two steps
        bound.inline = inline
    return bound


@register_kernel("scale", ("CPU", "GPU"), dtypes=[d for d in SCALE_DTYPES if d not in _FLOATS])
def scale(ctx, x: Tensor, scale: Scalar, bias: float, bias_after_scale: bool) -> Tensor:
    """x * scale + bias (or (x + bias) * scale), computed in x's dtype."""
    xp = ctx.xp
    dtype = ctx.data_type(x)
    # Paddle converts scale and bias to T first (scale.to<T>(), static_cast<T>(bias)) and
    # computes in T: on integer tensors 2.5 scales by 2 and bias 0.7 adds 0; ints wrap; bool
    # arithmetic is logical (x && s) || b.
    s = scalar_as(ctx, scale, dtype)
    b = scalar_as(ctx, bias, dtype)
    if dtype in (DataType.BFLOAT16, DataType.FLOAT16):
        # each half operation computes in float32 and converts back by truncation (funcs)
        s32 = ctx.astype(s, DataType.FLOAT32)
        b32 = ctx.astype(b, DataType.FLOAT32)
        x32 = ctx.astype(x, DataType.FLOAT32)
        with quiet(xp):
            if bias_after_scale:
                t = to_half(ctx, x32 * s32, dtype)
                return to_half(ctx, ctx.astype(t, DataType.FLOAT32) + b32, dtype)
            t = to_half(ctx, x32 + b32, dtype)
            return to_half(ctx, ctx.astype(t, DataType.FLOAT32) * s32, dtype)
    with quiet(xp):
        out = x * s + b if bias_after_scale else (x + b) * s
    return as_array(xp, out)
