"""Activation kernels: relu, sigmoid, tanh, exp (Paddle's
paddle/phi/kernels/cpu/activation_kernel.cc, funcs/activation_functor.h)."""

from __future__ import annotations

import numpy as np
from phi.common.data_type import DataType
from phi.core.bound import binds
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import jit
from phi.kernels.funcs import as_array, half_op, quiet
from phi.kernels.funcs.special import erf64
from phi.flags import FLAGS

__all__ = ["elu", "exp", "gelu", "hardsigmoid", "leaky_relu", "mish", "relu", "relu6", "sigmoid",
           "silu", "swish", "tanh"]

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
