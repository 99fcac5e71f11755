"""Element-wise unary kernels of helper `unary2`: trigonometric / hyperbolic functions, exp and
log variants, parameterised activations and the complex-number views (Paddle's
paddle/phi/kernels/cpu/{activation,logit,selu,angle,complex,as_complex,as_real}_kernel.cc,
funcs/activation_functor.h).

Formulas follow Paddle's functors, written so that NaN, +-inf and -0.0 come out as Paddle 2.6.2
gives them (checked with the wheel, tests/fixtures/single_ops/*): softshrink and
thresholded_relu multiply a 0/1 mask by x, so an infinite x outside the band gives NaN; selu
tests x <= 0, celu x < 0; float16 / bfloat16 compute in float32 and convert back by Paddle's
truncating conversion; int inputs of the exp / log variants give float32 (computed in double).
"""

from __future__ import annotations

import math

from phi.common.data_type import DataType
from phi.core.errors import PreconditionNotMet
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import COMPLEX, as_array, half_op, owned, quiet
from phi.kernels.funcs.special import bessel, digamma64, lgamma64, ndtri64, zeta64

__all__ = ["angle", "as_complex", "as_real", "brelu", "celu", "complex", "conj", "imag", "logit",
           "polygamma", "real", "selu", "soft_relu", "softplus", "softshrink", "stanh",
           "thresholded_relu"]

# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
F = ["float32", "float64"]
FC = [*F, "complex64", "complex128"]
INTS = ["int32", "int64"]
LOG_DTYPES = [*F, "float16", "bfloat16"]  # and int32 / int64 -> float32
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
    "log10": (LOG_DTYPES, lambda xp, x: xp.log10(x)),
    "log1p": (LOG_DTYPES, lambda xp, x: xp.log1p(x)),
    "log2": (LOG_DTYPES, lambda xp, x: xp.log2(x)),
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
    kernel is a fluid (STRUCTURE) kernel (fluid_compat/operators/fluid_kernels/unary2.py)."""
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
_COMPLEX_OF = {DataType.FLOAT32: DataType.COMPLEX64, DataType.FLOAT64: DataType.COMPLEX128}


_OUT = {d: {0: {"dtype": d}} for d in (DataType.FLOAT32, DataType.FLOAT64, DataType.COMPLEX64,
                                        DataType.COMPLEX128)}


@register_kernel("angle", ("CPU", "GPU"), dtypes=["complex64"],
                 output_defs=_OUT[DataType.FLOAT32])
def angle_c64(ctx, x: Tensor) -> Tensor:
    """arg(x) of a complex64 tensor, as float32."""
    return angle(ctx, x)


@register_kernel("angle", ("CPU", "GPU"), dtypes=["complex128"],
                 output_defs=_OUT[DataType.FLOAT64])
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


@register_kernel("conj", ("CPU", "GPU"), dtypes=["complex64", "complex128"])
def conj(ctx, x: Tensor) -> Tensor:
    """The complex conjugate."""
    return as_array(ctx.xp, ctx.xp.conj(x))


def _conj_real(ctx, x: Tensor) -> Tensor:
    """x itself (conj of a real tensor)."""
    return owned(ctx.xp, x)


register_kernel("conj", ("CPU", "GPU"), dtypes=F + INTS)(_conj_real)


def _part(ctx, x, imag_part: bool):
    xp = ctx.xp
    return owned(xp, xp.imag(x) if imag_part else xp.real(x))


@register_kernel("real", ("CPU", "GPU"), dtypes=["complex64"],
                 output_defs=_OUT[DataType.FLOAT32])
def real_c64(ctx, x: Tensor) -> Tensor:
    """The real part of a complex64 tensor (float32)."""
    return _part(ctx, x, False)


@register_kernel("real", ("CPU", "GPU"), dtypes=["complex128"],
                 output_defs=_OUT[DataType.FLOAT64])
def real(ctx, x: Tensor) -> Tensor:
    """The real part of a complex128 tensor (float64)."""
    return _part(ctx, x, False)


@register_kernel("imag", ("CPU", "GPU"), dtypes=["complex64"],
                 output_defs=_OUT[DataType.FLOAT32])
def imag_c64(ctx, x: Tensor) -> Tensor:
    """The imaginary part of a complex64 tensor (float32)."""
    return _part(ctx, x, True)


@register_kernel("imag", ("CPU", "GPU"), dtypes=["complex128"],
                 output_defs=_OUT[DataType.FLOAT64])
def imag(ctx, x: Tensor) -> Tensor:
    """The imaginary part of a complex128 tensor (float64)."""
    return _part(ctx, x, True)


def _assemble(ctx, re, im):
    """complex(re, im) built part by part (re + 1j * im would turn inf / -0.0 parts into
    NaN or +0.0)."""
    xp = ctx.xp
    out = xp.empty(re.shape, dtype=ctx.xp_dtype(_COMPLEX_OF[ctx.data_type(re)]))
    out.real[...] = re
    out.imag[...] = im
    return out


@register_kernel("as_complex", ("CPU", "GPU"), dtypes=["float32"],
                 output_defs=_OUT[DataType.COMPLEX64])
def as_complex_f32(ctx, x: Tensor) -> Tensor:
    """[..., 2] float32 pairs (re, im) -> complex64 [...]."""
    return as_complex(ctx, x)


@register_kernel("as_complex", ("CPU", "GPU"), dtypes=["float64"],
                 output_defs=_OUT[DataType.COMPLEX128])
def as_complex(ctx, x: Tensor) -> Tensor:
    """[..., 2] float64 pairs (re, im) -> complex128 [...]."""
    return _assemble(ctx, x[..., 0], x[..., 1])


@register_kernel("as_real", ("CPU", "GPU"), dtypes=["complex64"],
                 output_defs=_OUT[DataType.FLOAT32])
def as_real_c64(ctx, x: Tensor) -> Tensor:
    """complex64 [...] -> float32 [..., 2] pairs (re, im)."""
    return as_real(ctx, x)


@register_kernel("as_real", ("CPU", "GPU"), dtypes=["complex128"],
                 output_defs=_OUT[DataType.FLOAT64])
def as_real(ctx, x: Tensor) -> Tensor:
    """complex128 [...] -> float64 [..., 2] pairs (re, im)."""
    xp = ctx.xp
    return as_array(xp, xp.stack([xp.real(x), xp.imag(x)], axis=-1))


@register_kernel("complex", ("CPU", "GPU"), dtypes=["float32"],
                 output_defs=_OUT[DataType.COMPLEX64])
def complex_f32(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x + i y of float32 tensors (broadcast), complex64."""
    return complex(ctx, x, y)


@register_kernel("complex", ("CPU", "GPU"), dtypes=["float64"],
                 output_defs=_OUT[DataType.COMPLEX128])
def complex(ctx, x: Tensor, y: Tensor) -> Tensor:  # shadows a builtin: Paddle's kernel name
    """x + i y of float64 tensors (broadcast), complex128.  An empty result of a broadcast
    is refused as Paddle 2.6.2 refuses it (its broadcast path allocates no valid output)."""
    xp = ctx.xp
    if tuple(x.shape) != tuple(y.shape) and 0 in xp.broadcast_shapes(x.shape, y.shape):
        raise PreconditionNotMet(
            f"complex: the broadcast of Input(X) {list(x.shape)} and Input(Y) {list(y.shape)} "
            f"is empty; the meta data must be valid when call the mutable data function.")
    re, im = xp.broadcast_arrays(x, y)
    return _assemble(ctx, re, im)


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
