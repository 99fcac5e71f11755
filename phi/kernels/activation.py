"""Activation and element-wise unary math kernels and their grads: relu, sigmoid, tanh, exp,
gelu ..., the trigonometric / hyperbolic / rounding / special functions, abs, sign, pow (Paddle's
paddle/phi/kernels/cpu/activation_kernel.cc, activation_grad_kernel.cc,
funcs/activation_functor.h)."""

from __future__ import annotations

import inspect
import math
import struct

import numpy as np

from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.bound import binds
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.flags import FLAGS
from phi.kernels.funcs import (COMPLEX, INTEGERS, as_array, cast_array, float_to_int,
                               half_op, jit, owned, quiet, scalar_as, to_half)
from phi.kernels.funcs.activation import SAME_DTYPE_OUT, scalar_value
from phi.kernels.funcs.special import ZETA_A, bessel, digamma64, erf64, lgamma64, ndtri64, zeta64

__all__ = ["abs", "angle", "brelu", "ceil", "celu", "elu", "erf", "exp", "floor", "gelu",
           "hard_shrink", "hardsigmoid", "hardswish", "leaky_relu", "log", "logit", "mish",
           "polygamma", "pow", "relu", "relu6", "round", "rsqrt", "selu", "sigmoid", "sign", "silu",
           "soft_relu", "softplus", "softshrink", "sqrt", "stanh", "swish", "tanh",
           "thresholded_relu"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json): relu has no float16 or int kernel
RELU_DTYPES = ["float32", "float64"]
_ZEROS = {np.dtype(d): np.dtype(d).type(0) for d in RELU_DTYPES}
RELU6_DTYPES = ["float32", "float64"]
# leaky_relu, elu, hardsigmoid, swish, mish, gelu: float and double only; silu adds complex
FLOAT_DTYPES = ["float32", "float64"]
SILU_DTYPES = ["float32", "float64", "complex64", "complex128"]
SIGMOID_DTYPES = ["float32", "float64", "complex64", "complex128"]
TANH_DTYPES = ["float32", "float64", "complex64", "complex128"]
EXP_DTYPES = ["float32", "float64", "float16", "complex64", "complex128"]


def relu_values(xp, x, out=None):
    """relu's arithmetic on numpy / cupy, into ``out`` when given (the executor's fused steps
    apply it in place): fmax(v, 0) ignores a NaN v (-> 0) and gives +0.0 for -0.0, the values
    of ReluCPUFunctor in one pass (the where() form costs a mask and is ~8x slower)."""
    return xp.fmax(x, x.dtype.type(0), out=out)


def relu6_values(xp, x, out=None):
    """relu6's arithmetic on numpy / cupy, into ``out`` when given: one clip, which keeps -0.0
    and NaN like Eigen (np.maximum then minimum gives +0.0 and is ~4x slower on numpy 2)."""
    return xp.clip(x, x.dtype.type(0), x.dtype.type(6), out=out)


def _numpy_like(xp) -> bool:
    return getattr(xp, "__name__", "") in ("numpy", "cupy")


@register_kernel("relu", ("CPU", "GPU"), dtypes=RELU_DTYPES)
def relu(ctx, x: Tensor) -> Tensor:
    """ReluCPUFunctor v > 0 ? v : 0: NaN gives 0 and -0.0 gives +0.0 (tests pin both)."""
    zero = _ZEROS.get(x.dtype) if type(x) is np.ndarray else None
    if zero is not None:  # fmax(v, 0) with the dtype's zero made once
        out = np.fmax(x, zero)
        return out if type(out) is np.ndarray else np.asarray(out)  # 0-d: a numpy scalar
    xp = ctx.xp
    if _numpy_like(xp):
        return xp.asarray(relu_values(xp, x))
    zero = x.dtype.type(0)
    return xp.asarray(xp.where(x > zero, x, zero))


@binds(relu)
def _bind_relu(ctx, attrs, metas):
    """relu with its zero looked up once (phi.core.bound), written out as fmax(x, zero) for
    arrays of the planned dtype and non-0-d dims."""
    if ctx.xp is not np or metas[0] is None:
        return None
    t = metas[0][0].to_numpy()
    zero = _ZEROS.get(t)
    if zero is None:
        return None
    nd, fmax = np.ndarray, np.fmax

    def bound(x):
        if type(x) is nd and x.dtype is t:
            out = fmax(x, zero)
            return out if type(out) is nd else np.asarray(out)  # 0-d: a numpy scalar
        return relu(ctx, x)

    if metas[0][1]:
        bound.inline = lambda out, ins, const: [f"{out} = {const(fmax)}({ins[0]}, {const(zero)})"]
    return bound


@register_kernel("sigmoid", ("CPU", "GPU"), dtypes=SIGMOID_DTYPES)
def sigmoid(ctx, x: Tensor) -> Tensor:
    """1 / (1 + exp(-x)) in x's dtype (SigmoidFunctor); exp overflow gives exactly 0."""
    xp = ctx.xp
    one = ctx.asarray(1, ctx.data_type(x))
    with quiet(xp):
        return as_array(xp, one / (one + xp.exp(-x)))


@register_kernel("tanh", ("CPU", "GPU"), dtypes=TANH_DTYPES)
def tanh(ctx, x: Tensor) -> Tensor:
    """tanh(x)."""
    with quiet(ctx.xp):
        return as_array(ctx.xp, ctx.xp.tanh(x))


@register_kernel("exp", ("CPU", "GPU"), dtypes=["int32", "int64"],
                 output_defs={0: {"dtype": DataType.FLOAT32}})
def exp_int(ctx, x: Tensor) -> Tensor:
    """e**x of an int tensor as float32: Paddle 2.6.2's int kernels write float32 (checked with
    the wheel: exp(int64 [-3, 0, 20, 100]) = float32 [0.0498, 1, 4.85e8, inf])."""
    xp = ctx.xp
    with quiet(xp):
        return as_array(xp, ctx.astype(xp.exp(ctx.astype(x, DataType.FLOAT64)),
                                       DataType.FLOAT32))


@register_kernel("exp", ("CPU", "GPU"), dtypes=EXP_DTYPES)
def exp(ctx, x: Tensor) -> Tensor:
    """e**x."""
    xp = ctx.xp
    dtype = ctx.data_type(x)
    with quiet(xp):
        if dtype is DataType.FLOAT16:
            return half_op(ctx, xp.exp, x)  # expf, then Paddle's float -> half conversion
        return as_array(xp, xp.exp(x))


@register_kernel("relu6", ("CPU", "GPU"), dtypes=RELU6_DTYPES)
def relu6(ctx, x: Tensor) -> Tensor:
    """min(max(x, 0), 6) (Relu6Functor, threshold fixed at 6 in 2.6.2's kernel); NaN stays NaN
    and -0.0 stays -0.0, as Paddle 2.6.2 gives (Eigen's max keeps its first operand on a tie)."""
    xp = ctx.xp
    if _numpy_like(xp):
        return relu6_values(xp, x)
    zero, six = x.dtype.type(0), x.dtype.type(6)
    return as_array(xp, xp.minimum(xp.where(x < zero, zero, x), six))


@register_kernel("leaky_relu", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def leaky_relu(ctx, x: Tensor, negative_slope: float) -> Tensor:
    """x > 0 ? x : x * alpha (LeakyReluFunctor; -inf stays -inf, -0.0 stays -0.0)."""
    xp = ctx.xp
    with quiet(xp):
        return as_array(xp, xp.where(x > 0, x, x * x.dtype.type(negative_slope)))


@register_kernel("elu", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def elu(ctx, x: Tensor, alpha: float) -> Tensor:
    """x < 0 ? alpha * (exp(x) - 1) : x (ELUFunctor)."""
    xp = ctx.xp
    t = x.dtype.type
    with quiet(xp):
        return as_array(xp, xp.where(x < 0, t(alpha) * (xp.exp(x) - t(1)), x))


@register_kernel("hardsigmoid", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def hardsigmoid(ctx, x: Tensor, slope: float, offset: float) -> Tensor:
    """min(max(x * slope + offset, 0), 1); NaN stays NaN."""
    xp = ctx.xp
    t = x.dtype.type
    with quiet(xp):
        return as_array(xp, xp.minimum(xp.maximum(x * t(slope) + t(offset), t(0)), t(1)))


@register_kernel("swish", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def swish(ctx, x: Tensor) -> Tensor:
    """x / (1 + exp(-x)) (beta is fixed at 1 in 2.6.2's kernel); -inf gives NaN as in Paddle."""
    xp = ctx.xp
    with quiet(xp):
        return as_array(xp, x / (x.dtype.type(1) + xp.exp(-x)))


@register_kernel("silu", ("CPU", "GPU"), dtypes=SILU_DTYPES)
def silu(ctx, x: Tensor) -> Tensor:
    """x * sigmoid(x) = x / (1 + exp(-x)); -inf gives NaN as in Paddle."""
    xp = ctx.xp
    with quiet(xp):
        return as_array(xp, x / (x.dtype.type(1) + xp.exp(-x)))


@register_kernel("mish", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def mish(ctx, x: Tensor, threshold: float) -> Tensor:
    """x * tanh(softplus(x)), softplus(x) = x above ``threshold`` (MishFunctor)."""
    xp = ctx.xp
    with quiet(xp):
        softplus = xp.where(x > x.dtype.type(threshold), x, xp.log1p(xp.exp(x)))
        return as_array(xp, x * xp.tanh(softplus))


@register_kernel("gelu", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def gelu(ctx, x: Tensor, approximate: bool) -> Tensor:
    """0.5 x (1 + erf(x / sqrt 2)), or with ``approximate`` 0.5 x (1 + tanh(sqrt(2/pi) (x +
    0.044715 x^3))); computed in double and rounded to x's dtype (Paddle's float kernel differs
    by an ulp or two).  The exact form takes erfc from one fitted formula (``gelu_erfc``:
    ~1e-8 relative, invisible after rounding to float) unless FLAGS_gelu_fast_erf is off; for
    float32 / float64 numpy arrays, by its compiled loop (``_jit_loops.gelu_erf``) when its
    ahead-of-time build is there (``jit.built``)."""
    xp = ctx.xp
    if (not approximate and type(x) is np.ndarray and x.dtype in jit.DTYPES
            and FLAGS["FLAGS_gelu_fast_erf"]):
        loops = jit.built()
        if loops is not None:  # gelu_erfc's operations in one compiled call: the same bits
            out = np.empty(x.shape, x.dtype)
            loops.gelu_erf(jit.contiguous(x).reshape(-1), out.reshape(-1))
            return out
    dtype = ctx.data_type(x)
    d = ctx.astype(x, DataType.FLOAT64)
    with quiet(xp):
        if approximate:
            inner = 0.7978845608028654 * (d + 0.044715 * d * d * d)
            out = 0.5 * d * (1.0 + xp.tanh(inner))
        elif FLAGS["FLAGS_gelu_fast_erf"]:
            out = gelu_erfc(xp, d)
        else:
            out = 0.5 * d * (1.0 + erf64(xp, d * 0.7071067811865476))
        return as_array(xp, ctx.astype(out, dtype))


# P(s), s = 2t - 1, t = 1 / (1 + z/2): erfc(z) = t exp(P(s) - z^2) for z >= 0 (the form of
# Numerical Recipes' erfcc, refitted to degree 12 by Chebyshev least squares against
# mpmath's erfc: relative error below 6e-9 for every z >= 0, tails included; the compiled loop
# _jit_loops.gelu_erf has its own copy, kept equal by a test)
_ERFC_P = (-0.6717940851388154, 0.6726431549216213, 0.04734341643693044,
           -0.04689364399185815, -0.00987452046267413, 0.008808847334090202,
           0.0017705967296260954, -0.002288821720839572, -0.00018263344671821694,
           0.0005738291318443407, -3.2259167115437e-05, -8.730891487273462e-05,
           1.3424375825076774e-05)


def gelu_erfc(xp, d):
    """0.5 d (1 + erf(d / sqrt 2)) for a float64 array, erf taken as 1 - erfc(|w|) from one
    formula (no branches: ~35 numpy calls on any size instead of fdlibm's masked pieces).  1 +
    erf is formed in double as before, so far tails round to 0 as Paddle's do."""
    if d.ndim == 0:  # arithmetic on 0-d arrays gives scalars, which take no out=
        return gelu_erfc(xp, d.reshape(1)).reshape(())
    w = d * 0.7071067811865476
    a = xp.abs(w)
    t = a + 2.0
    xp.divide(2.0, t, out=t)  # 1 / (1 + a/2), the same bits (a power-of-two scaling)
    s = t * 2.0
    s -= 1.0
    p = s * _ERFC_P[-1]
    p += _ERFC_P[-2]
    for c in _ERFC_P[-3::-1]:
        p *= s
        p += c
    a *= a
    p -= a
    xp.exp(p, out=p)
    p *= t  # erfc(|w|)
    xp.subtract(1.0, p, out=p)  # erf(|w|)
    xp.negative(p, out=p, where=w < 0)  # erf(w); NaN stays NaN
    p += 1.0
    p *= d
    p *= 0.5
    return p


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
    f = scalar_as(ctx, float(scalar_value(factor)), DataType.FLOAT32)
    with quiet(xp):
        if dtype in INTEGERS:
            e = ctx.astype(float_to_int(ctx, f, dtype), DataType.FLOAT64)
            return float_to_int(ctx, xp.pow(ctx.astype(x, DataType.FLOAT64), e), dtype)
        return as_array(xp, xp.pow(x, ctx.astype(f, dtype)))


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
HARDSWISH_DTYPES = ["float32", "float64", "complex64", "complex128"]


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


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
F = ["float32", "float64"]
FC = [*F, "complex64", "complex128"]
INTS = ["int32", "int64"]
LOG_VARIANT_DTYPES = [*F, "float16", "bfloat16"]  # and int32 / int64 -> float32
HALF = (DataType.FLOAT16, DataType.BFLOAT16)
_FLOAT_OUT = {0: {"dtype": DataType.FLOAT32}}


def _logsigmoid(xp, x):
    # LogSigmoidFunctor: temp = max(-x, 0); -temp - log(exp(-temp) + exp(-x - temp))
    zero = x.dtype.type(0)
    temp = xp.where(xp.real(-x) > 0, -x, zero) if x.dtype.kind == "c" else xp.maximum(-x, zero)
    # Eigen's packet negation is 0 - temp: large x gives +0.0 as in Paddle (-temp would be -0.0)
    return (zero - temp) - xp.log(xp.exp(-temp) + xp.exp(-x - temp))


# name -> (float / complex dtypes, function of an array in its own dtype); every kernel takes x
UNARY = {
    "sin": (FC, lambda xp, x: xp.sin(x)),
    "cos": (FC, lambda xp, x: xp.cos(x)),
    "tan": (FC, lambda xp, x: xp.tan(x)),
    "asin": (FC, lambda xp, x: xp.arcsin(x)),
    "acos": (FC, lambda xp, x: xp.arccos(x)),
    "atan": (FC, lambda xp, x: xp.arctan(x)),
    "sinh": (FC, lambda xp, x: xp.sinh(x)),
    "cosh": (FC, lambda xp, x: xp.cosh(x)),
    "asinh": (FC, lambda xp, x: xp.arcsinh(x)),
    "acosh": (FC, lambda xp, x: xp.arccosh(x)),
    "atanh": (FC, lambda xp, x: xp.arctanh(x)),
    "expm1": ([*FC, "float16"], lambda xp, x: xp.expm1(x)),
    "log10": (LOG_VARIANT_DTYPES, lambda xp, x: xp.log10(x)),
    "log1p": (LOG_VARIANT_DTYPES, lambda xp, x: xp.log1p(x)),
    "log2": (LOG_VARIANT_DTYPES, lambda xp, x: xp.log2(x)),
    "reciprocal": (F, lambda xp, x: x.dtype.type(1) / x),
    "square": (F + INTS, lambda xp, x: x * x),  # int32 / int64 wrap as C++ does
    "trunc": (F, lambda xp, x: xp.trunc(x)),
    "logsigmoid": (FC, _logsigmoid),
    "softsign": (FC, lambda xp, x: x / (x.dtype.type(1) + xp.abs(x))),
    "tanh_shrink": (F, lambda xp, x: x - xp.tanh(x)),
}
# int inputs that give float32 (Paddle's WITH_INT_IN_FLOAT_OUT kernels)
INT_TO_FLOAT = ("expm1", "log10", "log1p", "log2")


def _unary_kernel(name: str, fn):
    def kernel(ctx, x: Tensor) -> Tensor:
        xp = ctx.xp
        with quiet(xp):
            if ctx.data_type(x) in HALF:
                return half_op(ctx, lambda a: fn(xp, a), x)
            return as_array(xp, fn(xp, x))

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"{name}(x) element-wise, in x's dtype."
    return kernel


def _int_to_float_kernel(name: str, fn):
    def kernel(ctx, x: Tensor) -> Tensor:
        xp = ctx.xp
        with quiet(xp):
            out = fn(xp, ctx.astype(x, DataType.FLOAT64))
            return as_array(xp, ctx.astype(out, DataType.FLOAT32))

    kernel.__name__ = kernel.__qualname__ = f"{name}_int"
    kernel.__doc__ = f"{name} of an int tensor, computed in double, as float32."
    return kernel


def _copy(ctx, x: Tensor) -> Tensor:
    """x itself (trunc of an integer)."""
    return owned(ctx.xp, x)


for _name, (_dtypes, _fn) in UNARY.items():
    register_kernel(_name, ("CPU", "GPU"), dtypes=_dtypes)(_unary_kernel(_name, _fn))
for _name in INT_TO_FLOAT:
    register_kernel(_name, ("CPU", "GPU"), dtypes=INTS, output_defs=_FLOAT_OUT)(
        _int_to_float_kernel(_name, UNARY[_name][1]))
register_kernel("trunc", ("CPU", "GPU"), dtypes=INTS)(_copy)


# -- activations with attributes --------------------------------------------------------------

def _t(x, value):
    """static_cast<T>(value) for x's dtype."""
    return x.dtype.type(value)


@register_kernel("softplus", ("CPU", "GPU"), dtypes=FC)
def softplus(ctx, x: Tensor, beta: float, threshold: float) -> Tensor:
    """beta * x > threshold ? x : log(1 + exp(beta * x)) / beta (complex: by the real part)."""
    xp = ctx.xp
    with quiet(xp):
        xb = x * _t(x, beta)
        return as_array(xp, xp.where(xp.real(xb) > threshold, x,
                                     xp.log(_t(x, 1) + xp.exp(xb)) / _t(x, beta)))


@register_kernel("softshrink", ("CPU", "GPU"), dtypes=F)
def softshrink(ctx, x: Tensor, threshold: float) -> Tensor:
    """(x > l) * (x - l) + (x < -l) * (x + l): masks times values, so +-inf gives NaN."""
    xp = ctx.xp
    lam = _t(x, threshold)
    with quiet(xp):
        return as_array(xp, (x > lam).astype(x.dtype) * (x - lam)
                        + (x < -lam).astype(x.dtype) * (x + lam))


@register_kernel("thresholded_relu", ("CPU", "GPU"), dtypes=F)
def thresholded_relu(ctx, x: Tensor, threshold: float) -> Tensor:
    """(x > threshold) * x: -inf gives NaN, x <= threshold gives a signed zero."""
    xp = ctx.xp
    with quiet(xp):
        return as_array(xp, (x > _t(x, threshold)).astype(x.dtype) * x)


@register_kernel("selu", ("CPU", "GPU"), dtypes=F)
def selu(ctx, x: Tensor, scale: float, alpha: float) -> Tensor:
    """scale * (x <= 0 ? alpha * exp(x) - alpha : x)."""
    xp = ctx.xp
    a = _t(x, alpha)
    with quiet(xp):
        return as_array(xp, _t(x, scale) * xp.where(x <= 0, a * xp.exp(x) - a, x))


@register_kernel("celu", ("CPU", "GPU"), dtypes=F)
def celu(ctx, x: Tensor, alpha: float) -> Tensor:
    """x < 0 ? alpha * (exp(x / alpha) - 1) : x."""
    xp = ctx.xp
    a = _t(x, alpha)
    with quiet(xp):
        return as_array(xp, xp.where(x < 0, a * (xp.exp(x / a) - _t(x, 1)), x))


@register_kernel("hardtanh", ("CPU", "GPU"), dtypes=F)
def brelu(ctx, x: Tensor, t_min: float, t_max: float) -> Tensor:
    """min(max(x, t_min), t_max) (legacy brelu); NaN stays NaN."""
    xp = ctx.xp
    return as_array(xp, xp.clip(x, _t(x, t_min), _t(x, t_max)))


def soft_relu(xp, x, threshold: float):
    """log(1 + exp(clip(x, -threshold, threshold))): the values of soft_relu, whose Paddle 2.6.2
    kernel is a fluid (STRUCTURE) kernel (fluid_compat/operators/fluid_kernels/activation.py)."""
    t = _t(x, threshold)
    with quiet(xp):
        return as_array(xp, xp.log(_t(x, 1) + xp.exp(xp.clip(x, -t, t))))


@register_kernel("stanh", ("CPU", "GPU"), dtypes=FC)
def stanh(ctx, x: Tensor, scale_a: float, scale_b: float) -> Tensor:
    """scale_b * tanh(scale_a * x)."""
    xp = ctx.xp
    with quiet(xp):
        return as_array(xp, _t(x, scale_b) * xp.tanh(_t(x, scale_a) * x))


@register_kernel("logit", ("CPU", "GPU"), dtypes=F)
def logit(ctx, x: Tensor, eps: float) -> Tensor:
    """log(t / (1 - t)), t = x clipped to [eps, 1 - eps]; with eps 0, NaN outside [0, 1]."""
    xp = ctx.xp
    with quiet(xp):
        t = xp.maximum(xp.minimum(x, _t(x, 1.0 - eps)), _t(x, eps))
        out = xp.log(t / (_t(x, 1) - t))
        if not eps:
            out = xp.where((x < 0) | (x > 1), _t(x, math.nan), out)
        return as_array(xp, out)


# -- complex numbers ----------------------------------------------------------------------------

_REAL_OF = {DataType.COMPLEX64: DataType.FLOAT32, DataType.COMPLEX128: DataType.FLOAT64}


@register_kernel("angle", ("CPU", "GPU"), dtypes=["complex64"],
                 output_defs=SAME_DTYPE_OUT[DataType.FLOAT32])
def angle_c64(ctx, x: Tensor) -> Tensor:
    """arg(x) of a complex64 tensor, as float32."""
    return angle(ctx, x)


@register_kernel("angle", ("CPU", "GPU"), dtypes=["complex128"],
                 output_defs=SAME_DTYPE_OUT[DataType.FLOAT64])
def angle_c128(ctx, x: Tensor) -> Tensor:
    """arg(x) of a complex128 tensor, as float64."""
    return angle(ctx, x)


@register_kernel("angle", ("CPU", "GPU"), dtypes=F)
def angle(ctx, x: Tensor) -> Tensor:
    """atan2(imag, real) for complex x; for real x, x < 0 ? pi : 0 (NaN and -0.0 give 0)."""
    xp = ctx.xp
    if ctx.data_type(x) in COMPLEX:
        return as_array(xp, xp.angle(x))
    return as_array(xp, xp.where(x < 0, _t(x, math.pi), _t(x, 0)))


# -- special functions (float32 / float64) --------------------------------------------------------

def _erfinv(xp, x):
    # ErfinvKernel: ndtri(x * 0.5 + 0.5) * sqrt(1/2), the affine step in x's dtype (|x| > 1
    # gives +-inf)
    t = x.dtype.type
    p = (x * t(0.5) + t(0.5)).astype(xp.float64)
    return ndtri64(xp, p) * math.sqrt(0.5)


# name -> function of x in float64 (digamma, lgamma, erfinv) or in x's dtype (Bessel)
SPECIAL = {
    "digamma": lambda xp, x: digamma64(xp, x.astype(xp.float64)),
    "lgamma": lambda xp, x: lgamma64(xp, x.astype(xp.float64)),
    "erfinv": _erfinv,
    "i0": lambda xp, x: bessel(xp, x, 0, False),
    "i0e": lambda xp, x: bessel(xp, x, 0, True),
    "i1": lambda xp, x: bessel(xp, x, 1, False),
    "i1e": lambda xp, x: bessel(xp, x, 1, True),
}


def _special_kernel(name: str, fn):
    def kernel(ctx, x: Tensor) -> Tensor:
        xp = ctx.xp
        with quiet(xp):
            return as_array(xp, ctx.astype(fn(xp, x), ctx.data_type(x)))

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"{name}(x) element-wise, in x's dtype."
    return kernel


for _name, _fn in SPECIAL.items():
    register_kernel(_name, ("CPU", "GPU"), dtypes=F)(_special_kernel(_name, _fn))


@register_kernel("polygamma", ("CPU", "GPU"), dtypes=F)
def polygamma(ctx, x: Tensor, n: int) -> Tensor:
    """(-1)^(n+1) n! zeta(n + 1, x), for every n: Paddle 2.6.2's CPU kernel has no digamma
    branch, so n = 0 gives -inf everywhere (zeta(1, x) = inf) and n < 0 NaN (checked with the
    wheel)."""
    xp = ctx.xp
    dtype = ctx.data_type(x)
    with quiet(xp):
        d = x.astype(xp.float64)
        if n < 0:  # zeta(s < 1, x) is a domain error: NaN (n! = inf) everywhere
            return as_array(xp, xp.full(x.shape, math.nan, dtype=x.dtype))
        sign = 1.0 if n % 2 else -1.0
        out = sign * math.exp(math.lgamma(n + 1.0)) * zeta64(xp, float(n + 1), d)
        return as_array(xp, ctx.astype(out, dtype))


_SQRT_2PI_INV = 1.0 / math.sqrt(2.0 * math.pi)


def _mask(cond, a):
    """A comparison as 0 / 1 in a's dtype (Eigen's ``.cast<T>()``)."""
    return cond.astype(a.dtype)


def _re(xp, a):
    """The real part (complex comparisons of the functors compare real parts)."""
    return xp.real(a) if a.dtype.kind == "c" else a


def _zeta(xp, s: float, q):
    """Eigen's zeta_impl(s, q) in q's dtype, s >= 2 an integer: Cephes' Euler-Maclaurin sum
    whose direct part has 9 terms in float (Eigen's zeta_impl_series<float>; a negative q
    then gives Paddle's large wrong values) and runs until q + i > 9 in double; poles at
    q = 0, -1, ... are inf for even s and NaN for odd s."""
    t = q.dtype.type
    machep = t(5.9604644775390625e-8 if q.dtype.itemsize == 4 else 1.11022302462515654042e-16)
    x = t(s)
    pole = (q <= 0) & (q == xp.floor(q))
    total = xp.power(q, -x)
    a, b = q, xp.zeros_like(q)
    done = xp.zeros(q.shape, dtype=bool)
    stuck = ~xp.isfinite(q)  # -inf (a pole) never reaches 9; +inf ends as NaN below
    i = 0
    while True:
        go = ~done & ~stuck & ((i < 9) | ((a <= 9) if q.dtype.itemsize == 8 else False))
        if not bool(xp.any(go)):
            break
        a = xp.where(go, a + t(1), a)
        b = xp.where(go, xp.power(a, -x), b)
        total = xp.where(go, total + b, total)
        done = done | (go & (xp.abs(b / total) < machep))
        i += 1
    direct = done.copy()
    w = a
    tail = total + b * w / (x - t(1)) - t(0.5) * b
    fact, k = t(1), t(0)
    for coeff in ZETA_A:
        fact = fact * (x + k)
        b = b / w
        term = fact * b / t(coeff)
        tail = xp.where(done, tail, tail + term)
        done = done | (xp.abs(term / tail) < machep)
        k = k + t(1)
        fact = fact * (x + k)
        b = b / w
        k = k + t(1)
    out = xp.where(direct, total, tail)
    return xp.where(pole, t(math.inf if int(s) % 2 == 0 else math.nan), out)


def _polygamma(xp, n: int, x):
    """Eigen's polygamma(n, x) for n >= 1 in x's dtype: (-1)^(n+1) n! zeta(n + 1, x)."""
    t = x.dtype.type
    sign = t(1) if n % 2 else t(-1)
    return sign * t(math.exp(math.lgamma(n + 1.0))) * _zeta(xp, float(n + 1), x)


def _f64(fn):
    """A derivative computed in double and rounded to the input's dtype (Paddle's special
    functions; their float kernels differ from this by an ulp)."""
    return lambda xp_, a, *attrs: fn(xp_, a.astype(xp_.float64), *attrs).astype(a.dtype)


def _elu(xp, x, out, alpha):
    # EluGradKernel: alpha > 0 -> ELUGradFunctor on Out, else ELUGradNegativeAlphaFunctor on X
    if alpha > 0:
        return xp.where(out > 0, _t(x, 1), out + _t(x, alpha))
    return xp.where(x > 0, _t(x, 1), _t(x, alpha) * xp.exp(x))


def _celu(xp, x, alpha):
    # CELUGradFunctor's sum of four masked terms: x = +inf gives inf * 0 = NaN as in Paddle
    e = xp.exp(x / _t(x, alpha))
    xpos, xneg = _mask(x > 0, x), _mask(x <= 0, x)
    apos, aneg = _t(x, alpha > 0), _t(x, alpha <= 0)
    return apos * xpos + e * apos * xneg + aneg * xpos + e * aneg * xneg


def _hardswish(xp, x):
    # HardSwishGradFunctor with Paddle 2.6.2's fixed threshold 6, scale 6, offset 3
    t = x.dtype.type
    xo = _re(xp, x + t(3))
    tmp = _mask(xo < 6, x)
    return _mask(xo > 0, x) * (t(2) * x + t(3)) / t(6) * tmp + (t(1) - tmp)


def _swish(xp, x):
    t = x.dtype.type
    s = t(1) / (t(1) + xp.exp(-x))
    out = x * s
    return out + s * (t(1) - out)


def _silu(xp, x, out):
    t = x.dtype.type
    e = xp.exp(-x)
    d = t(1) + e
    return (t(1) / d) * (t(1) + x * e / d)


def _mish(xp, x, threshold):
    t = x.dtype.type
    sp = xp.where(x > t(threshold), x, xp.log(t(1) + xp.exp(x)))
    tsp = xp.tanh(sp)
    return tsp + x * (t(1) - tsp * tsp) * (t(1) - xp.exp(-sp))


def _logsigmoid_backward(xp, x):
    zero = _t(x, 0)
    temp = xp.where(_re(xp, -x) > 0, -x, zero)
    e = xp.exp(-x - temp)
    return e / (xp.exp(-temp) + e)


def _gelu(xp, x, approximate):
    # GeluGradKernel's formulas, in double
    if approximate:
        k = math.sqrt(2.0 / math.pi)
        th = xp.tanh(k * (x + 0.044715 * x * x * x))
        return 0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * k * (1.0 + 3 * 0.044715 * x * x)
    return 0.5 * (1.0 + erf64(xp, x * 0.7071067811865476)) + x * _SQRT_2PI_INV * xp.exp(
        -0.5 * x * x)


def _softplus(xp, x, beta, threshold):
    xb = x * _t(x, beta)
    return xp.where(_re(xp, xb) > threshold, _t(x, 1), _t(x, 1) / (_t(x, 1) + xp.exp(-xb)))


def _logit(xp, x, eps):
    # LogitGradFunctor: 0 outside [eps, 1 - eps] (with eps 0: outside [0, 1])
    t = x.dtype.type
    out = t(1) / ((t(1) - x) * x)
    return xp.where((x < t(eps)) | (x > t(1.0 - eps)), t(0), out)


def _selu(xp, out, scale, alpha):
    # SeluGradFunctor: out <= 0 ? out + alpha * scale : scale (alpha * scale in float)
    la = _as_f32(_as_f32(alpha) * _as_f32(scale))
    return xp.where(out <= 0, out + _t(out, la), _t(out, _as_f32(scale)))


def _as_f32(v: float) -> float:
    """A Python float rounded to a C++ float (the functors' float attributes)."""
    return struct.unpack("f", struct.pack("f", v))[0]


def _abs(xp, g, x):
    # AbsGradCPUFunctor: x == 0 ? 0 : dout * x / |x| (complex: dout is real)
    if x.dtype.kind in "iu":
        return g * xp.sign(x)
    safe = xp.where(x == 0, _t(x, 1), x)
    return xp.where(x == 0, _t(x, 0), g.astype(x.dtype) * (safe / xp.abs(safe)))


def _angle(xp, g, x):
    # AngleGradFunctor: real x gets 0; complex x != 0 gets dout * (-imag, real) / |x|^2
    if x.dtype.kind != "c":
        return xp.zeros_like(x)
    r2 = x.real * x.real + x.imag * x.imag
    safe = xp.where(r2 == 0, _t(r2, 1), r2)
    d = (-x.imag / safe + 1j * (x.real / safe)).astype(x.dtype)
    return xp.where(x == 0, _t(x, 0), g.astype(x.dtype) * d)


def _pow(xp, g, x, factor):
    # PowGradFunctor: dout * T(factor) * x^(T(factor) - 1), factor read as float
    f = float(factor.value if isinstance(factor, Scalar) else factor)
    if x.dtype.kind in "iu":
        fi = x.dtype.type(int(_as_f32(f)))
        e = int(fi) - 1
        if e >= 0:
            p = x ** x.dtype.type(e)
        else:  # integer power with a negative exponent: 1, -1 or 0
            p = xp.where(x == 1, 1, xp.where(x == -1, (-1) ** (-e), 0)).astype(x.dtype)
        return g * fi * p
    t = x.dtype.type
    ft = t(_as_f32(f))
    return g * ft * xp.power(x, ft - t(1))


def _zero(xp, g):
    # ZeroGradFunctor: 0 * dout (NaN / inf gradients give NaN)
    return _t(g, 0) * g


def _i1(xp, x, out, scaled):
    # I1GradFunctor / I1eGradFunctor: 0.5 at |x| <= eps, else
    # i0(x) - out / x  (scaled: i0e(x) - out * (sign(x) + 1 / x))
    t = x.dtype.type
    small = xp.abs(x) <= t(xp.finfo(x.dtype).eps)
    safe = xp.where(small, t(1), x)
    i0 = bessel(xp, safe, 0, scaled)
    d = i0 - out * (xp.sign(safe) + t(1) / safe) if scaled else i0 - out / safe
    return xp.where(small, t(0.5), d)


# name -> (dtypes, forward tensors read (signature order, before Out@GRAD), attributes
#          ((name, type), ...), derivative fn(xp, *tensors, *attrs), direct: fn returns dx
#          from (xp, dout, *tensors, *attrs))
GRADS = {
    "relu_grad": (F, ("out",), (), lambda xp, o: _mask(o > 0, o), False),
    "relu6_grad": (F, ("out",), (), lambda xp, o: _mask((o > 0) & (o < 6), o), False),
    "sigmoid_grad": (FC, ("out",), (), lambda xp, o: o * (_t(o, 1) - o), False),
    "tanh_grad": (FC, ("out",), (), lambda xp, o: _t(o, 1) - o * o, False),
    "exp_grad": (FC + INTS, ("out",), (), lambda xp, o: o, False),
    "expm1_grad": ([*FC, "float16"], ("out",), (), lambda xp, o: o + _t(o, 1), False),
    "sqrt_grad": (F, ("out",), (), lambda xp, o: _t(o, 0.5) / o, False),
    "rsqrt_grad": (F, ("out",), (), lambda xp, o: _t(o, -0.5) * o * o * o, False),
    "reciprocal_grad": (F, ("out",), (), lambda xp, o: -(o * o), False),
    "erfinv_grad": (F, ("out",), (),
                    lambda xp, o: _t(o, math.sqrt(math.pi) / 2) * xp.exp(o * o), False),
    "hardsigmoid_grad": (F, ("out",), (("slope", float), ("offset", float)),
                         lambda xp, o, s, _: _mask((o > 0) & (o < 1), o) * _t(o, s), False),
    "selu_grad": (F, ("out",), (("scale", float), ("alpha", float)), _selu, False),
    "sin_grad": (FC, ("x",), (), lambda xp, x: xp.cos(x), False),
    "cos_grad": (FC, ("x",), (), lambda xp, x: -xp.sin(x), False),
    "tan_grad": (FC, ("x",), (), lambda xp, x: _t(x, 1) / xp.square(xp.cos(x)), False),
    "asin_grad": (FC, ("x",), (), lambda xp, x: _t(x, 1) / xp.sqrt(_t(x, 1) - x * x), False),
    "acos_grad": (FC, ("x",), (), lambda xp, x: -_t(x, 1) / xp.sqrt(_t(x, 1) - x * x), False),
    "atan_grad": (FC, ("x",), (), lambda xp, x: _t(x, 1) / (_t(x, 1) + x * x), False),
    "sinh_grad": (FC, ("x",), (), lambda xp, x: xp.cosh(x), False),
    "cosh_grad": (FC, ("x",), (), lambda xp, x: xp.sinh(x), False),
    "asinh_grad": (FC, ("x",), (), lambda xp, x: _t(x, 1) / xp.sqrt(x * x + _t(x, 1)), False),
    "acosh_grad": (FC, ("x",), (), lambda xp, x: _t(x, 1) / xp.sqrt(x * x - _t(x, 1)), False),
    "atanh_grad": (FC, ("x",), (), lambda xp, x: _t(x, 1) / (_t(x, 1) - x * x), False),
    "log_grad": (F, ("x",), (), lambda xp, x: _t(x, 1) / x, False),
    "log2_grad": (F, ("x",), (), lambda xp, x: _t(x, 1) / (x * _t(x, math.log(2))), False),
    "log10_grad": (F, ("x",), (), lambda xp, x: _t(x, 1) / (x * _t(x, math.log(10))), False),
    "log1p_grad": (F, ("x",), (), lambda xp, x: _t(x, 1) / (x + _t(x, 1)), False),
    "square_grad": (F + INTS, ("x",), (), lambda xp, x: _t(x, 2) * x, False),
    "erf_grad": ([*F, "float16"], ("x",), (),
                 lambda xp, x: _t(x, 2 / math.sqrt(math.pi)) * xp.exp(-(x * x)), False),
    "softsign_grad": (FC, ("x",), (),
                      lambda xp, x: _t(x, 1) / xp.square(_t(x, 1) + xp.abs(x)), False),
    "tanh_shrink_grad": (F, ("x",), (), lambda xp, x: xp.tanh(x) * xp.tanh(x), False),
    "logsigmoid_grad": (FC, ("x",), (), _logsigmoid_backward, False),
    "swish_grad": (F, ("x",), (), _swish, False),
    "hardswish_grad": (FC, ("x",), (), _hardswish, False),
    "silu_grad": (FC, ("x", "out"), (), _silu, False),
    "elu_grad": (F, ("x", "out"), (("alpha", float),), _elu, False),
    "celu_grad": (F, ("x",), (("alpha", float),), _celu, False),
    "leaky_relu_grad": (F, ("x",), (("alpha", float),),
                        lambda xp, x, a: _t(x, a) * _mask(x < 0, x) + _mask(x >= 0, x), False),
    "hardtanh_grad": (F, ("x",), (("t_min", float), ("t_max", float)),
                      lambda xp, x, lo, hi: _mask((x > _t(x, lo)) & (x < _t(x, hi)), x), False),
    "thresholded_relu_grad": (F, ("x",), (("threshold", float),),
                              lambda xp, x, th: _mask(x > _t(x, th), x), False),
    "hard_shrink_grad": (F, ("x",), (("threshold", float),),
                         lambda xp, x, th: _mask((x < _t(x, -th)) | (x > _t(x, th)), x), False),
    "softshrink_grad": (F, ("x",), (("lambd", float),),
                        lambda xp, x, lam: _mask(x > _t(x, lam), x) + _mask(x < -_t(x, lam), x),
                        False),
    "stanh_grad": (FC, ("x",), (("scale_a", float), ("scale_b", float)),
                   lambda xp, x, a, b: _t(x, a) * _t(x, b) * (
                       _t(x, 1) - xp.tanh(_t(x, a) * x) * xp.tanh(_t(x, a) * x)), False),
    "softplus_grad": (FC, ("x",), (("beta", float), ("threshold", float)), _softplus, False),
    "mish_grad": (F, ("x",), (("threshold", float),), _mish, False),
    "gelu_grad": (F, ("x",), (("approximate", bool),), _f64(_gelu), False),
    "logit_grad": (F, ("x",), (("eps", float),), _logit, False),
    "digamma_grad": (F, ("x",), (), lambda xp, x: _polygamma(xp, 1, x), False),
    "lgamma_grad": (F, ("x",), (), _f64(digamma64), False),
    "polygamma_grad": (F, ("x",), (("n", int),),
                       lambda xp, x, n: _polygamma(xp, n + 1, x), False),
    "i0_grad": (F, ("x",), (), lambda xp, x: bessel(xp, x, 1, False), False),
    "i0e_grad": (F, ("x", "out"), (),  # the sign of -0.0 is -1 here (Paddle's values)
                 lambda xp, x, o: bessel(xp, x, 1, True) - xp.copysign(_t(x, 1), x) * o, False),
    "i1_grad": (F, ("x", "out"), (), lambda xp, x, o: _i1(xp, x, o, False), False),
    "i1e_grad": (F, ("x", "out"), (), lambda xp, x, o: _i1(xp, x, o, True), False),
    "abs_grad": (FC + INTS, ("x",), (), _abs, True),
    "angle_grad": (FC, ("x",), (), _angle, True),
    "pow_grad": (F + INTS, ("x",), (("factor", Scalar),), _pow, True),
    "floor_grad": (F, (), (), _zero, True),
    "ceil_grad": (F, (), (), _zero, True),
    "round_grad": (F, (), (), _zero, True),
    "trunc_grad": (F + INTS, (), (), lambda xp, g: xp.zeros_like(g), True),
}


# float16 kernels: Eigen's half arithmetic rounds (truncates, Paddle's conversion) after every
# operation of the functor's expression; ``r`` rounds a float32 value to half and back
HALF_STEPS = {
    "expm1_grad": lambda xp, r, g, o: r(r(g * o) + g),  # dout * out + dout
    # dout * T(M_2_SQRTPI) * (-(x.square())).exp()
    "erf_grad": lambda xp, r, g, x: r(r(g * r(_t(g, 2 / math.sqrt(math.pi))))
                                      * r(xp.exp(-r(x * x)))),
}
# complex abs / angle: Out is real, so is Out@GRAD (the registration's ToReal input)
REAL_GRAD_OF_COMPLEX = ("abs_grad", "angle_grad")
_REAL = {"complex64": DataType.FLOAT32, "complex128": DataType.FLOAT64}


def _compute(xp, fn, direct, g, tensors, attrs):
    if direct:
        return fn(xp, g, *tensors, *attrs)
    d = fn(xp, *tensors, *attrs)
    if d.dtype.kind == "c":
        d = xp.conj(d)
    return g * d


def _grad_kernel(name: str, slots: tuple, attrs: tuple, fn, direct: bool):
    def kernel(ctx, *args):
        xp = ctx.xp
        n = len(slots) + 1
        tensors, g, values = args[:len(slots)], args[n - 1], args[n:]
        with quiet(xp):
            dtype = ctx.data_type(g)
            if dtype in HALF:
                def r(v):
                    return ctx.astype(to_half(ctx, v, dtype), DataType.FLOAT32)
                g32, *t32 = (ctx.astype(a, DataType.FLOAT32) for a in (g, *tensors))
                return to_half(ctx, HALF_STEPS[name](xp, r, g32, *t32), dtype)
            return as_array(xp, _compute(xp, fn, direct, g, tensors, values))

    params = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    params += [inspect.Parameter(s, inspect.Parameter.POSITIONAL_OR_KEYWORD)
               for s in (*slots, "out_grad")]
    params += [inspect.Parameter(a, inspect.Parameter.POSITIONAL_OR_KEYWORD) for a, _ in attrs]
    kernel.__signature__ = inspect.Signature(params)
    kernel.__annotations__ = {**{s: Tensor for s in (*slots, "out_grad")}, **dict(attrs),
                              "return": Tensor}
    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"{name}: x_grad from {', '.join((*slots, 'out_grad'))}."
    return kernel


for _name, (_dtypes, _slots, _attrs, _fn, _direct) in GRADS.items():
    _kernel = _grad_kernel(_name, _slots, _attrs, _fn, _direct)
    if _name in REAL_GRAD_OF_COMPLEX:
        for _c, _r in _REAL.items():
            register_kernel(_name, ("CPU", "GPU"), dtypes=[_c],
                            input_defs={"out_grad": {"dtype": _r}})(_kernel)
        _dtypes = [d for d in _dtypes if d not in _REAL]
    register_kernel(_name, ("CPU", "GPU"), dtypes=_dtypes)(_kernel)


# -- double grads ----------------------------------------------------------------------------
# Paddle 2.6.2's *GradGradFunctor / *DoubleGradKernel (activation_functor.h,
# activation_grad_impl.h, matmul_grad_kernel_impl.h).  Names of the arguments: out / x the
# forward tensors, dout the first grad's input gradient, dx the first grad's result (sqrt,
# rsqrt), ddx the gradient of the first grad's output; results in the signature's order.

F16F = ["float16", *F]
F16FC = [*F16F, "complex64", "complex128"]


def _softplus_dd(xp, x, dout, ddx, beta, threshold):
    t = x.dtype.type
    xb = x * t(beta)
    big = _re(xp, xb) > threshold
    e = xp.exp(xb)
    dx = xp.where(big, t(0), ddx * dout * t(beta) * e / xp.square(e + t(1)))
    return dx, xp.where(big, ddx, ddx / (t(1) + xp.exp(-xb)))


def _pow_dd(xp, x, dout, ddx, factor):
    # PowDoubleGradKernel: dx = ddx * dout * f (f - 1) x^(f - 2), ddout = ddx * f x^(f - 1)
    f = _as_f32(float(factor.value if isinstance(factor, Scalar) else factor))
    t = x.dtype.type
    if x.dtype.kind in "iu":
        fi = int(f)
        p1, p2 = (xp.power(x.astype(xp.float64), e) for e in (fi - 1, fi - 2))
        dx = (ddx * dout * p2 * (fi * (fi - 1))).astype(x.dtype)
        return dx, (ddx * p1 * fi).astype(x.dtype)
    dx = xp.zeros_like(x) if f == 1 else ddx * dout * xp.power(x, t(f - 2)) * t(f * (f - 1))
    return dx, ddx * xp.power(x, t(f - 1)) * t(f)


def _abs_dd(xp, x, ddx):
    safe = xp.where(x == 0, _t(x, 1), x)
    if x.dtype.kind in "iu":
        return (ddx * xp.sign(x)).astype(x.dtype)
    return xp.where(x == 0, _t(x, 0), ddx * (safe / xp.abs(safe)))


# name -> (dtypes, tensor arguments, attributes, number of outputs, fn(xp, *tensors, *attrs))
DOUBLE_GRADS = {
    "relu_double_grad": (F16F, ("out", "ddx"), (), 1,
                         lambda xp, o, ddx: ddx * _mask(o > 0, o)),
    "sigmoid_double_grad": (FC, ("out", "dout", "ddx"), (), 2,
                            lambda xp, o, d, ddx: ((_t(o, 1) - _t(o, 2) * o) * d * ddx,
                                                   (_t(o, 1) - o) * o * ddx)),
    "tanh_double_grad": (F16FC, ("out", "dout", "ddx"), (), 2,
                         lambda xp, o, d, ddx: (_t(o, -1) * d * _t(o, 2) * o * ddx,
                                                (_t(o, 1) - o * o) * ddx)),
    "leaky_relu_double_grad": (F16F, ("x", "ddx"), (("alpha", float),), 1,
                               lambda xp, x, ddx, a: ddx * (_mask(x > 0, x)
                                                            + _t(x, a) * _mask(x <= 0, x))),
    "elu_double_grad": (F16F, ("x", "dout", "ddx"), (("alpha", float),), 2,
                        lambda xp, x, d, ddx, a: (
                            ddx * d * _t(x, a) * xp.exp(x) * _mask(x <= 0, x),
                            ddx * (_mask(x > 0, x) + _t(x, a) * xp.exp(x) * _mask(x <= 0, x)))),
    "celu_double_grad": (F16F, ("x", "dout", "ddx"), (("alpha", float),), 2,
                         lambda xp, x, d, ddx, a: (
                             ddx * d / _t(x, a) * xp.exp(x / _t(x, a)) * _mask(x <= 0, x),
                             ddx * (_mask(x > 0, x)
                                    + xp.exp(x / _t(x, a)) * _mask(x <= 0, x)))),
    "softplus_double_grad": (F16FC, ("x", "dout", "ddx"),
                             (("beta", float), ("threshold", float)), 2, _softplus_dd),
    "sqrt_double_grad": (F16F, ("out", "dx", "ddx"), (), 2,
                         lambda xp, o, dx, ddx: (dx * ddx * _t(o, -1) / o,
                                                 ddx * _t(o, 0.5) / o)),
    "rsqrt_double_grad": (F16F, ("out", "dx", "ddx"), (), 2,
                          lambda xp, o, dx, ddx: (_t(o, 3) / o * dx * ddx,
                                                  ddx * _t(o, -0.5) * o * o * o)),
    "square_double_grad": (F16F + INTS, ("x", "dout", "ddx"), (), 2,
                           lambda xp, x, d, ddx: (ddx * _t(x, 2) * d, ddx * _t(x, 2) * x)),
    "log_double_grad": (F16F, ("x", "dout", "ddx"), (), 2,
                        lambda xp, x, d, ddx: (d * _t(x, -1) * ddx / (x * x), ddx * _t(x, 1) / x)),
    "pow_double_grad": (F + INTS, ("x", "dout", "ddx"), (("factor", Scalar),), 2, _pow_dd),
    "abs_double_grad": (FC + INTS, ("x", "ddx"), (), 1, _abs_dd),
}


def _double_kernel(name: str, slots: tuple, attrs: tuple, n_out: int, fn):
    def kernel(ctx, *args):
        xp = ctx.xp
        tensors, values = args[:len(slots)], args[len(slots):]
        with quiet(xp):
            dtype = ctx.data_type(tensors[0])
            if dtype in HALF:  # computed in float32, converted back once
                f32 = [ctx.astype(a, DataType.FLOAT32) for a in tensors]
                outs = fn(xp, *f32, *values)
                outs = outs if n_out > 1 else (outs,)
                outs = tuple(to_half(ctx, as_array(xp, o), dtype) for o in outs)
            else:
                outs = fn(xp, *tensors, *values)
                outs = tuple(as_array(xp, o) for o in (outs if n_out > 1 else (outs,)))
            return outs if n_out > 1 else outs[0]

    params = [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD)
              for p in ("ctx", *slots, *(a for a, _ in attrs))]
    kernel.__signature__ = inspect.Signature(params)
    kernel.__annotations__ = {**dict.fromkeys(slots, Tensor), **dict(attrs),
                              "return": tuple[(Tensor,) * n_out] if n_out > 1 else Tensor}
    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"{name}: the gradients of {name[:-len('_double_grad')]}_grad's inputs."
    return kernel


for _name, (_dtypes, _slots, _attrs, _n, _fn) in DOUBLE_GRADS.items():
    register_kernel(_name, ("CPU", "GPU"), dtypes=_dtypes)(
        _double_kernel(_name, _slots, _attrs, _n, _fn))


@register_kernel("hard_shrink", ("CPU", "GPU"), dtypes=["float32", "float64"])
def hard_shrink(ctx, x: Tensor, threshold: float) -> Tensor:
    """x where |x| > threshold, else 0 (times the mask: -0.0 for negative x in the band)."""
    xp = ctx.xp
    t = x.dtype.type(threshold)
    with quiet(xp):
        mask = ((x < -t) | (x > t)).astype(x.dtype)
        return as_array(xp, x * mask)
