"""Element-wise math kernels: sqrt, rsqrt, abs, log, floor, ceil, round, sign, erf, pow, clip
(Paddle's paddle/phi/kernels/cpu/{activation,abs,sign,erf,clip}_kernel.cc,
funcs/activation_functor.h).

Values follow Paddle 2.6.2 on CPU, checked with the wheel: float32 sqrt follows Eigen's packets
(see _eigen_packet_sqrt), rsqrt(-0.0) is -inf; round halves away from zero (std::round);
sign(NaN) is NaN and sign(-0.0) is +0.0; log of an int tensor is computed in double and returned
as float32.
"""

from __future__ import annotations

from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import (
    INTEGERS,
    as_array,
    cast_array,
    float_to_int,
    half_op,
    quiet,
    scalar_as,
)
from phi.kernels.funcs.special import erf64

__all__ = ["abs", "ceil", "clip", "erf", "floor", "isfinite", "isinf", "isnan", "log", "pow",
           "round", "rsqrt", "sign", "sqrt"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
FLOAT_DTYPES = ["float32", "float64"]
ABS_DTYPES = ["float32", "float64", "int32", "int64", "complex64", "complex128"]
LOG_DTYPES = ["float32", "float64", "int32", "int64", "float16", "bfloat16"]
SIGN_DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float32", "float64"]
ERF_DTYPES = ["float32", "float64", "float16"]
POW_CLIP_DTYPES = ["float32", "float64", "int32", "int64"]


@register_kernel("sqrt", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def sqrt(ctx, x: Tensor) -> Tensor:
    """sqrt(x); NaN below zero; float32 on CPU keeps Eigen's packet special values."""
    xp = ctx.xp
    with quiet(xp):
        out = xp.sqrt(x)
        if x.dtype == xp.float32 and ctx.backend == Backend.CPU and x.size >= 8:
            out = _eigen_packet_sqrt(xp, x, out)
        return as_array(xp, out)


def _eigen_packet_sqrt(xp, x, out):
    """Paddle's float32 CPU sqrt runs Eigen's fast-math AVX psqrt (x * rsqrt(x), one Newton
    step) on every whole 8-float packet and std::sqrt on the tail: in the packets +inf gives
    NaN, [-0.0, FLT_MIN) gives +0.0 and a negative subnormal +inf; the tail keeps IEEE sqrt
    (-0.0 stays -0.0). Checked with the wheel (conformance case sqrt-special)."""
    flat, res = x.reshape(-1), out.reshape(-1).copy()
    n = flat.size // 8 * 8
    head, tiny = flat[:n], xp.finfo(xp.float32).tiny
    res[:n] = xp.where(head == xp.inf, xp.nan, res[:n])
    res[:n] = xp.where((head >= 0) & (head < tiny), xp.float32(0), res[:n])
    res[:n] = xp.where((head < 0) & (head > -tiny), xp.inf, res[:n])
    return res.reshape(out.shape)


@register_kernel("rsqrt", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def rsqrt(ctx, x: Tensor) -> Tensor:
    """1 / sqrt(x) (-0.0 gives -inf, +0.0 gives +inf)."""
    xp = ctx.xp
    with quiet(xp):
        return as_array(xp, x.dtype.type(1) / xp.sqrt(x))


@register_kernel("abs", ("CPU", "GPU"), dtypes=ABS_DTYPES)
def abs(ctx, x: Tensor) -> Tensor:  # shadows a builtin: Paddle's kernel name
    """|x|; INT_MIN stays INT_MIN (wraps); complex64/128 give float32/64 (AbsKernel allocates
    Real<T>, RealAndImagInferMeta; Paddle-made case lodmeta_abs_c64)."""
    return as_array(ctx.xp, ctx.xp.abs(x))


@register_kernel("log", ("CPU", "GPU"), dtypes=[d for d in LOG_DTYPES if not d.startswith("int")])
def log(ctx, x: Tensor) -> Tensor:
    """Natural log: -inf at 0, NaN below."""
    xp = ctx.xp
    with quiet(xp):
        if ctx.data_type(x) in (DataType.FLOAT16, DataType.BFLOAT16):
            return half_op(ctx, xp.log, x)  # logf, then Paddle's float -> half conversion
        return as_array(xp, xp.log(x))


@register_kernel("log", ("CPU", "GPU"), dtypes=["int32", "int64"],
                 output_defs={0: {"dtype": DataType.FLOAT32}})
def log_int(ctx, x: Tensor) -> Tensor:
    """log of an int tensor, as float32 (Paddle's int kernel writes a float32 output)."""
    xp = ctx.xp
    with quiet(xp):
        return as_array(xp, ctx.astype(xp.log(ctx.astype(x, DataType.FLOAT64)),
                                       DataType.FLOAT32))


@register_kernel("floor", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def floor(ctx, x: Tensor) -> Tensor:
    """floor(x)."""
    return as_array(ctx.xp, ctx.xp.floor(x))


@register_kernel("ceil", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def ceil(ctx, x: Tensor) -> Tensor:
    """ceil(x)."""
    return as_array(ctx.xp, ctx.xp.ceil(x))


@register_kernel("round", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def round(ctx, x: Tensor) -> Tensor:  # shadows a builtin: Paddle's kernel name
    """std::round: halves away from zero (numpy's round goes to even)."""
    xp = ctx.xp
    with quiet(xp):
        t = xp.trunc(x)
        away = xp.abs(x - t) >= x.dtype.type(0.5)
        return as_array(xp, xp.where(away, t + xp.sign(x), t))


@register_kernel("sign", ("CPU", "GPU"), dtypes=SIGN_DTYPES)
def sign(ctx, x: Tensor) -> Tensor:
    """-1, 0 or 1 in x's dtype; NaN stays NaN, -0.0 gives +0.0."""
    xp = ctx.xp
    if ctx.data_type(x) in INTEGERS:
        return as_array(xp, xp.astype(xp.sign(x), x.dtype))
    return as_array(xp, xp.sign(x) + x.dtype.type(0))


@register_kernel("erf", ("CPU", "GPU"), dtypes=ERF_DTYPES)
def erf(ctx, x: Tensor) -> Tensor:
    """erf(x), computed in double and converted to x's dtype as C++ does (float16: through
    float, then Paddle's truncating float -> half)."""
    xp = ctx.xp
    with quiet(xp):
        return cast_array(ctx, erf64(xp, ctx.astype(x, DataType.FLOAT64)), ctx.data_type(x))


@register_kernel("pow", ("CPU", "GPU"), dtypes=POW_CLIP_DTYPES)
def pow(ctx, x: Tensor, factor: Scalar) -> Tensor:  # shadows a builtin: Paddle's kernel name
    """x ** static_cast<T>(factor.to<float>()); integers go through double pow and truncate."""
    xp = ctx.xp
    dtype = ctx.data_type(x)
    f = scalar_as(ctx, float(_number(factor)), DataType.FLOAT32)
    with quiet(xp):
        if dtype in INTEGERS:
            e = ctx.astype(float_to_int(ctx, f, dtype), DataType.FLOAT64)
            return float_to_int(ctx, xp.pow(ctx.astype(x, DataType.FLOAT64), e), dtype)
        return as_array(xp, xp.pow(x, ctx.astype(f, dtype)))


@register_kernel("clip", ("CPU", "GPU"), dtypes=POW_CLIP_DTYPES)
def clip(ctx, x: Tensor, min: Scalar, max: Scalar) -> Tensor:  # Paddle's argument names
    """x < min ? min : (x > max ? max : x) with min, max converted to T; NaN stays NaN."""
    xp = ctx.xp
    dtype = ctx.data_type(x)
    lo = scalar_as(ctx, _number(min), dtype)
    hi = scalar_as(ctx, _number(max), dtype)
    if bool(lo > hi):
        raise InvalidArgument(
            f"max should be greater than or equal to min. But received min = {lo}, max = {hi}"
        )
    return as_array(xp, xp.where(x < lo, lo, xp.where(x > hi, hi, x)))


def _number(value):
    return value.value if isinstance(value, Scalar) else value


# Paddle 2.6.2 CPU registrations of isnan / isinf / isfinite (corpus phi_kernels.json)
IS_DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64"]
_BOOL_OUT = {0: {"dtype": DataType.BOOL}}


@register_kernel("isnan", ("CPU", "GPU"), dtypes=IS_DTYPES, output_defs=_BOOL_OUT)
def isnan(ctx, x: Tensor) -> Tensor:
    """Whether each element is NaN (never for integers)."""
    xp = ctx.xp
    if ctx.data_type(x) in INTEGERS:
        return xp.zeros(x.shape, dtype=xp.bool_)
    return as_array(xp, xp.isnan(x))


@register_kernel("isinf", ("CPU", "GPU"), dtypes=IS_DTYPES, output_defs=_BOOL_OUT)
def isinf(ctx, x: Tensor) -> Tensor:
    """Whether each element is +-inf (never for integers; for bfloat16 also NaN)."""
    xp = ctx.xp
    if ctx.data_type(x) in INTEGERS:
        return xp.zeros(x.shape, dtype=xp.bool_)
    if ctx.data_type(x) is DataType.BFLOAT16:
        # phi's bfloat16 isinf tests only the exponent bits ((x & 0x7f80) == 0x7f80): NaN
        # counts as inf (Paddle-made cases hb_isinf_v2_*bf16)
        bits = x.view(ctx.xp_dtype(DataType.UINT16))
        return as_array(xp, xp.bitwise_and(bits, 0x7F80) == 0x7F80)
    return as_array(xp, xp.isinf(x))


@register_kernel("isfinite", ("CPU", "GPU"), dtypes=IS_DTYPES, output_defs=_BOOL_OUT)
def isfinite(ctx, x: Tensor) -> Tensor:
    """Whether each element is neither NaN nor +-inf (always for integers)."""
    xp = ctx.xp
    if ctx.data_type(x) in INTEGERS:
        return xp.ones(x.shape, dtype=xp.bool_)
    return as_array(xp, xp.isfinite(x))
