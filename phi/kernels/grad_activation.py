"""Grad kernels of the activation / unary-math ops (Paddle's paddle/phi/kernels/cpu/
activation_grad_kernel.cc and funcs/activation_functor.h, the *GradFunctor structs; erf, erfinv,
digamma, lgamma, polygamma, the Bessel functions, gelu, logit, selu, angle, abs, trunc in their
own *_grad_kernel files).

One table: grad kernel name -> (CPU dtypes, the forward tensors it reads in the signature's
order, the attributes, the derivative).  Every kernel computes ``dx = dout * conj(d)``, ``d``
the derivative written as Paddle's functor writes it (masks are multiplied, not selected, so an
infinite ``dout`` where the mask is 0 gives NaN as in Paddle; complex inputs take the conjugate
derivative as Paddle's complex functors do); ``direct`` entries compute ``dx`` themselves.
float16 kernels compute in float32 and convert back with Paddle's truncation.
"""

from __future__ import annotations

import inspect
import math
import struct

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet, to_half
from phi.kernels.funcs.special import erf64
from phi.kernels.funcs.special import ZETA_A, bessel, digamma64

__all__: list[str] = []

# Paddle 2.6.2 CPU registrations of the grad kernels (corpus phi_kernels.json)
F = ["float32", "float64"]
FC = [*F, "complex64", "complex128"]
INTS = ["int32", "int64"]
HALF = (DataType.FLOAT16, DataType.BFLOAT16)

_SQRT_2PI_INV = 1.0 / math.sqrt(2.0 * math.pi)


def _t(a, value):
    """static_cast<T>(value) for a's dtype."""
    return a.dtype.type(value)


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


def _logsigmoid(xp, x):
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
    "logsigmoid_grad": (FC, ("x",), (), _logsigmoid, False),
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


def _matmul_vjp(xp, x, y, g, trans_x: bool, trans_y: bool):
    """The gradients of out = op(x) @ op(y) for the out-gradient g (Paddle's MatmulGradKernel:
    1-D operands as a row / column, batch dims broadcast and summed back, complex operands
    conjugated)."""
    xx = x[None, :] if x.ndim == 1 else (xp.swapaxes(x, -1, -2) if trans_x else x)
    yy = y[:, None] if y.ndim == 1 else (xp.swapaxes(y, -1, -2) if trans_y else y)
    full = xp.matmul(xx, yy).shape
    gg = g.reshape(full)
    cj = xp.conj if g.dtype.kind == "c" else (lambda a: a)
    gx = xp.matmul(gg, cj(xp.swapaxes(yy, -1, -2)))
    gy = xp.matmul(cj(xp.swapaxes(xx, -1, -2)), gg)

    def back(d, like, operand, trans):
        lead = d.ndim - operand.ndim  # sum the broadcast batch dims back to the operand's
        d = d.sum(axis=tuple(range(lead))) if lead else d
        axes = tuple(i for i, (a, b) in enumerate(zip(d.shape[:-2], operand.shape[:-2],
                                                      strict=True)) if a != b)
        d = d.sum(axis=axes, keepdims=True) if axes else d
        if like.ndim == 1:
            return d.reshape(like.shape)
        return xp.swapaxes(d, -1, -2) if trans else d

    return back(gx, x, xx, trans_x), back(gy, y, yy, trans_y)


@register_kernel("matmul_double_grad", ("CPU", "GPU"), dtypes=FC)
def matmul_double_grad(ctx, x: Tensor, y: Tensor, dout: Tensor, ddx: Tensor | None,
                       ddy: Tensor | None, trans_x: bool, trans_y: bool
                       ) -> tuple[Tensor, Tensor, Tensor]:
    """(dx, dy, ddout) of matmul_grad: ddout = op(ddx) @ op(y) + op(x) @ op(ddy); dx, dy the
    first grad's formulas with ddy for y and ddx for x; a missing ddx / ddy counts as 0."""
    xp = ctx.xp
    with quiet(xp):
        zero_x, zero_y = xp.zeros_like(x), xp.zeros_like(y)
        ddx = zero_x if ddx is None else ddx
        ddy = zero_y if ddy is None else ddy
        mm = _matmul_forward(xp, trans_x, trans_y)
        ddout = (mm(ddx, y) + mm(x, ddy)).reshape(dout.shape)
        dx, _ = _matmul_vjp(xp, x, ddy, dout, trans_x, trans_y)
        _, dy = _matmul_vjp(xp, ddx, y, dout, trans_x, trans_y)
        return as_array(xp, dx), as_array(xp, dy), as_array(xp, ddout)


def _matmul_forward(xp, trans_x: bool, trans_y: bool):
    def mm(a, b):
        a = xp.swapaxes(a, -1, -2) if trans_x and a.ndim > 1 else a
        b = xp.swapaxes(b, -1, -2) if trans_y and b.ndim > 1 else b
        return xp.matmul(a, b)
    return mm
