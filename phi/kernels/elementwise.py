"""Element-wise binary kernels with broadcasting, add_n and their grads (Paddle's
paddle/phi/kernels/cpu/elementwise*.cc, funcs/elementwise_functor.h, funcs/elementwise_base.h).

Inputs broadcast numpy-style (Paddle's axis = -1).  Integer results wrap on overflow, as the
C++ functors do on x86-64.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from phi.common.data_type import DataType
from phi.core.bound import binds
from phi.core.errors import InvalidArgument, PreconditionNotMet
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import (COMPLEX, INTEGERS, as_array, bf16_op, float_to_int, half_op, quiet,
                               to_half, trunc_divide)
from phi.kernels.funcs.elementwise import align_axis, empty_broadcast_check, reduce_to

__all__ = ["add", "add_n", "add_n_bf16", "add_raw", "atan2", "divide", "divide_raw",
           "elementwise_pow", "elementwise_pow_raw", "maximum", "maximum_raw", "minimum",
           "minimum_raw", "multiply", "multiply_raw", "nextafter", "subtract", "subtract_raw"]


_HALF = (DataType.FLOAT16, DataType.BFLOAT16)


def _int_divisor_check(ctx, x, y) -> None:
    # Paddle enforces b != 0 per computed element for integer floor divide / remainder
    if ctx.data_type(x) in INTEGERS and x.size and y.size and bool(ctx.xp.any(y == 0)):
        raise InvalidArgument(_DIV_ZERO)


def _floor_divide(ctx, x, y):
    """FloorDivideFunctor: integers floor (Python //) and refuse 0; floats as Python's
    divmod (inf // 2 is nan, 1 // 0 is inf)."""
    xp = ctx.xp
    _int_divisor_check(ctx, x, y)
    if ctx.data_type(x) in _HALF:
        return half_op(ctx, xp.floor_divide, x, y)
    with quiet(xp):
        return as_array(xp, xp.floor_divide(x, y))


def _remainder(ctx, x, y):
    """RemainderFunctor: r = a % b (fmod for floats), plus b when r != 0 and its sign differs
    from b's (so -0.0 % 2 stays -0.0, unlike numpy's remainder)."""
    xp = ctx.xp
    _int_divisor_check(ctx, x, y)
    if ctx.data_type(x) in INTEGERS:
        return as_array(xp, xp.remainder(x, y))
    with quiet(xp):
        r = xp.fmod(x, y)
        return as_array(xp, xp.where((r != 0) & ((r < 0) != (y < 0)), r + y, r))


def _fmax(ctx, x, y):
    """FMaxFunctor (std::fmax): NaN only when both are NaN."""
    return as_array(ctx.xp, ctx.xp.fmax(x, y))


def _fmin(ctx, x, y):
    """FMinFunctor (std::fmin): NaN only when both are NaN."""
    return as_array(ctx.xp, ctx.xp.fmin(x, y))


def _heaviside(ctx, x, y):
    """ElementwiseHeavisideFunctor: a == 0 ? b : (a > 0) (NaN gives 0, not numpy's NaN)."""
    xp = ctx.xp
    return as_array(xp, xp.where(x == 0, y, xp.astype(x > 0, x.dtype)))


def _grad_add(ctx, x, y):
    """x + y (trailing broadcast)."""
    with quiet(ctx.xp):
        return as_array(ctx.xp, x + y)


def _register(name: str, functor, dtypes, raw: bool) -> None:
    def plain(ctx, x: Tensor, y: Tensor) -> Tensor:
        empty_broadcast_check(name, x, y)
        return functor(ctx, x, y)

    plain.__name__ = plain.__qualname__ = name
    plain.__doc__ = functor.__doc__
    register_kernel(name, ("CPU", "GPU"), dtypes=dtypes)(plain)
    globals()[name] = plain
    __all__.append(name)
    if raw:
        def raw_fn(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
            empty_broadcast_check(name, x, y)
            return functor(ctx, *align_axis(ctx.xp, x, y, axis))

        raw_fn.__name__ = raw_fn.__qualname__ = f"{name}_raw"
        raw_fn.__doc__ = f"{name} with legacy axis alignment."
        register_kernel(f"{name}_raw", ("CPU", "GPU"), dtypes=dtypes)(raw_fn)
        globals()[f"{name}_raw"] = raw_fn
        __all__.append(f"{name}_raw")


_F_I = ["float32", "float64", "int32", "int64"]
# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
for _name, _fn, _dtypes, _raw in (
    ("floor_divide", _floor_divide, ["float32", "float64", "int8", "uint8", "int16", "int32",
                                     "int64", "float16", "bfloat16"], True),
    ("remainder", _remainder, _F_I, True),
    ("fmax", _fmax, _F_I, False),
    ("fmin", _fmin, _F_I, False),
    ("heaviside", _heaviside, _F_I, False),
    ("grad_add", _grad_add, ["float32", "float64", "int16", "int32", "int64", "complex64",
                             "complex128"], False),
):
    _register(_name, _fn, _dtypes, _raw)


@register_kernel("atan2", ("CPU", "GPU"), dtypes=["float32", "float64", "int32", "int64",
                                                  "float16"])
def atan2(ctx, x: Tensor, y: Tensor) -> Tensor:
    """atan2(x, y); integers give float64 computed in float32 (atan2f, as Paddle's CPU)."""
    xp = ctx.xp
    dtype = ctx.data_type(x)
    if dtype is DataType.FLOAT16:
        return half_op(ctx, xp.arctan2, x, y)
    via = {DataType.INT32: DataType.FLOAT32, DataType.INT64: DataType.FLOAT32}.get(dtype)
    if via is not None:
        x, y = ctx.astype(x, via), ctx.astype(y, via)
        if xp is np:  # atan2f itself, one value at a time: integer atan2 is rare and small
            from phi.kernels.funcs.libm import libm_atan2

            return ctx.astype(libm_atan2(x, y), DataType.FLOAT64)
    with quiet(xp):
        out = xp.arctan2(x, y)
    return as_array(xp, out if via is None else ctx.astype(out, DataType.FLOAT64))


@register_kernel("nextafter", ("CPU", "GPU"), dtypes=["float32", "float64"])
def nextafter(ctx, x: Tensor, y: Tensor) -> Tensor:
    """std::nextafter(x, y)."""
    empty_broadcast_check("nextafter", x, y)
    return as_array(ctx.xp, ctx.xp.nextafter(x, y))


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json): no bool or float16 add on CPU
ADD_DTYPES = ["float32", "float64", "int16", "int32", "int64", "complex64", "complex128"]
SUBTRACT_DTYPES = ["float32", "float64", "int16", "int32", "int64", "complex64", "complex128",
                   "bfloat16"]
MULTIPLY_DTYPES = ["float32", "float64", "int32", "int64", "bool", "complex64", "complex128",
                   "bfloat16"]
DIVIDE_DTYPES = ["float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool",
                 "complex64", "complex128"]
MIN_MAX_DTYPES = ["float32", "float64", "int32", "int64", "bfloat16"]

_DIV_ZERO = ("Integer division by zero encountered in (floor) divide. Please check the input "
             "value.")


def _without_bf16(dtypes: list[str]) -> list[str]:
    return [d for d in dtypes if d != "bfloat16"]


def _empty_check(x, y) -> None:
    # Paddle 2.6.2's CPU ElementwiseCompute never allocates an empty output when x and y differ
    # in dims (broadcasting): the op fails (PreconditionNotMet), so it fails here too
    # (conformance cases elementwise_*-18: [0, 3] with [3])
    if tuple(x.shape) != tuple(y.shape):
        raise PreconditionNotMet(
            "The meta data must be valid when call the mutable data function (Paddle 2.6.2 "
            f"cannot broadcast X {list(x.shape)} and Y {list(y.shape)} to an empty output).")


# The hot kernels run without np.errstate (it costs more than a small add): an overflow to inf
# may print numpy's RuntimeWarning; the values are Paddle's.  bfloat16 gets its own kernels,
# so the common path tests no dtype.


@register_kernel("add", ("CPU", "GPU"), dtypes=_without_bf16(ADD_DTYPES))
def add(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x + y."""
    if not (x.size and y.size):
        _empty_check(x, y)
    return ctx.xp.asarray(x + y)


@register_kernel("subtract", ("CPU", "GPU"), dtypes=_without_bf16(SUBTRACT_DTYPES))
def subtract(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x - y."""
    if not (x.size and y.size):
        _empty_check(x, y)
    return ctx.xp.asarray(x - y)


@register_kernel("multiply", ("CPU", "GPU"), dtypes=_without_bf16(MULTIPLY_DTYPES))
def multiply(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x * y; on bool tensors logical and (MultiplyFunctor<bool>), which numpy's * also is."""
    if not (x.size and y.size):
        _empty_check(x, y)
    return ctx.xp.asarray(x * y)


def _bind_binary(kernel, op, symbol: str):
    """The binder of ``kernel`` (x op y): the context's xp looked up once (phi.core.bound);
    written out as ``x symbol y`` for arrays of the planned non-empty dims, 0-d excluded."""

    def binder(ctx, attrs, metas):
        if ctx.xp is not np:
            return None
        nd = np.ndarray

        def bound(x, y):
            if type(x) is nd and type(y) is nd and x.size and y.size:
                r = op(x, y)
                return r if type(r) is nd else np.asarray(r)  # 0-d: a numpy scalar
            return kernel(ctx, x, y)

        if all(m is not None and m[1] and math.prod(m[1]) for m in metas):
            bound.inline = lambda out, ins, const: [f"{out} = {ins[0]} {symbol} {ins[1]}"]
        return bound

    binds(kernel)(binder)


_bind_binary(add, operator.add, "+")
_bind_binary(subtract, operator.sub, "-")
_bind_binary(multiply, operator.mul, "*")


@register_kernel("subtract", ("CPU", "GPU"), dtypes=["bfloat16"])
def subtract_bf16(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x - y in float32, truncated back to bfloat16 as Paddle's CPU bfloat16 does."""
    if not (x.size and y.size):
        _empty_check(x, y)
    return bf16_op(ctx, lambda a, b: a - b, x, y)


@register_kernel("multiply", ("CPU", "GPU"), dtypes=["bfloat16"])
def multiply_bf16(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x * y in float32, truncated back to bfloat16."""
    if not (x.size and y.size):
        _empty_check(x, y)
    return bf16_op(ctx, lambda a, b: a * b, x, y)


@register_kernel("divide", ("CPU", "GPU"), dtypes=DIVIDE_DTYPES)
def divide(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x / y; integers truncate toward zero and refuse a zero divisor (DivideFunctor)."""
    if not (x.size and y.size):
        _empty_check(x, y)
    xp = ctx.xp
    dtype = ctx.data_type(x)
    if dtype in INTEGERS or dtype is DataType.BOOL:
        # Paddle enforces b != 0 per element actually computed; with an empty result none is.
        # (Paddle's CPU path for a y of higher rank uses InverseDivideFunctor, which does not
        # check and would crash on x86; the error is raised whatever the ranks.)
        if x.size and y.size and bool(xp.any(y == 0)):
            raise InvalidArgument(_DIV_ZERO)
        if dtype is DataType.BOOL:
            # bool / true (C++ promotes to int: 1/1, 0/1) is x itself
            return as_array(xp, xp.logical_and(x, y))
        return trunc_divide(xp, x, y)
    with quiet(xp):
        return as_array(xp, x / y)


def _ordered(x, y):
    # Paddle's CPU ElementwiseCompute calls the functor as f(y, x) when x has fewer dims than
    # y (is_xsize_larger = false, elementwise_base.h); maximum and minimum have no inverse
    # functor, so the operands swap, which decides which NaN or signed zero is returned.
    return (x, y) if x.ndim >= y.ndim else (y, x)


@register_kernel("maximum", ("CPU", "GPU"), dtypes=MIN_MAX_DTYPES)
def maximum(ctx, x: Tensor, y: Tensor) -> Tensor:
    """MaximumFunctor a > b ? a : b: a NaN in b wins, a NaN in a loses (not numpy's maximum)."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = _ordered(x, y)
    return as_array(ctx.xp, ctx.xp.where(a > b, a, b))


@register_kernel("minimum", ("CPU", "GPU"), dtypes=MIN_MAX_DTYPES)
def minimum(ctx, x: Tensor, y: Tensor) -> Tensor:
    """MinimumFunctor a < b ? a : b: a NaN in b wins, a NaN in a loses (not numpy's minimum)."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = _ordered(x, y)
    return as_array(ctx.xp, ctx.xp.where(a < b, a, b))


@register_kernel("add_raw", ("CPU", "GPU"), dtypes=_without_bf16(ADD_DTYPES))
def add_raw(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """x + y with legacy axis alignment."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = align_axis(ctx.xp, x, y, axis)
    return ctx.xp.asarray(a + b)


@register_kernel("subtract_raw", ("CPU", "GPU"), dtypes=_without_bf16(SUBTRACT_DTYPES))
def subtract_raw(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """x - y with legacy axis alignment."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = align_axis(ctx.xp, x, y, axis)
    return ctx.xp.asarray(a - b)


@register_kernel("subtract_raw", ("CPU", "GPU"), dtypes=["bfloat16"])
def subtract_raw_bf16(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """x - y with legacy axis alignment, in bfloat16."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = align_axis(ctx.xp, x, y, axis)
    return bf16_op(ctx, lambda u, v: u - v, a, b)


@register_kernel("multiply_raw", ("CPU", "GPU"), dtypes=_without_bf16(MULTIPLY_DTYPES))
def multiply_raw(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """x * y with legacy axis alignment."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = align_axis(ctx.xp, x, y, axis)
    return ctx.xp.asarray(a * b)


@register_kernel("multiply_raw", ("CPU", "GPU"), dtypes=["bfloat16"])
def multiply_raw_bf16(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """x * y with legacy axis alignment, in bfloat16."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = align_axis(ctx.xp, x, y, axis)
    return bf16_op(ctx, lambda u, v: u * v, a, b)


# Paddle 2.6.2 registers divide_raw for fewer dtypes than divide (no int8/uint8/int16)
@register_kernel("divide_raw", ("CPU", "GPU"), dtypes=["float32", "float64", "int32", "int64",
                                                       "bool", "complex64", "complex128"])
def divide_raw(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """x / y with legacy axis alignment (integer semantics as ``divide``)."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = align_axis(ctx.xp, x, y, axis)
    return divide(ctx, a, b)


@register_kernel("maximum_raw", ("CPU", "GPU"), dtypes=MIN_MAX_DTYPES)
def maximum_raw(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """MaximumFunctor with legacy axis alignment (operands ordered by their original ranks)."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = _ordered(*align_axis(ctx.xp, x, y, axis)) if x.ndim >= y.ndim else align_axis(
        ctx.xp, y, x, axis)
    return as_array(ctx.xp, ctx.xp.where(a > b, a, b))


@register_kernel("minimum_raw", ("CPU", "GPU"), dtypes=MIN_MAX_DTYPES)
def minimum_raw(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """MinimumFunctor with legacy axis alignment (operands ordered by their original ranks)."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = _ordered(*align_axis(ctx.xp, x, y, axis)) if x.ndim >= y.ndim else align_axis(
        ctx.xp, y, x, axis)
    return as_array(ctx.xp, ctx.xp.where(a < b, a, b))


@register_kernel("elementwise_pow", ("CPU", "GPU"), dtypes=["float32", "float64", "int32",
                                                            "int64"])
def elementwise_pow(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x ** y; integers go through double pow and round to nearest (Paddle's
    ElementwisePowFunctor uses std::llrint(std::pow(a, b)) for integral types)."""
    if not (x.size and y.size):
        _empty_check(x, y)
    xp = ctx.xp
    dtype = ctx.data_type(x)
    with quiet(xp):
        if dtype in INTEGERS:
            r = xp.rint(xp.pow(ctx.astype(x, DataType.FLOAT64), ctx.astype(y, DataType.FLOAT64)))
            return as_array(xp, ctx.astype(r, dtype))
        return as_array(xp, xp.pow(x, y))


@register_kernel("elementwise_pow", ("CPU", "GPU"), dtypes=["bfloat16"])
def elementwise_pow_bf16(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x ** y in float32, truncated back to bfloat16."""
    if not (x.size and y.size):
        _empty_check(x, y)
    return bf16_op(ctx, lambda u, v: u ** v, x, y)


@register_kernel("elementwise_pow_raw", ("CPU", "GPU"), dtypes=["float32", "float64", "int32",
                                                                "int64", "bfloat16"])
def elementwise_pow_raw(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """x ** y with legacy axis alignment (integer semantics as ``elementwise_pow``; bfloat16
    as ``elementwise_pow_bf16``: Paddle registers it, a legacy pow with an axis runs it)."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = align_axis(ctx.xp, x, y, axis)
    if ctx.data_type(x) is DataType.BFLOAT16:
        return elementwise_pow_bf16(ctx, a, b)
    return elementwise_pow(ctx, a, b)


# Paddle 2.6.2 CPU registrations of add_n (corpus phi_kernels.json)
ADD_N_DTYPES = ["float32", "float64", "int32", "int64", "float16", "bfloat16", "complex64",
                "complex128"]


@register_kernel("add_n", ("CPU", "GPU"),
                 dtypes=[d for d in ADD_N_DTYPES if d not in ("float16", "bfloat16")])
def add_n(ctx, inputs: list[Tensor]) -> Tensor:
    """The sum of the tensors, added in order in their dtype; size-0 inputs are skipped (all
    empty: a 0-D zero, as AddNInferMeta shapes it)."""
    xp = ctx.xp
    with quiet(xp):
        return as_array(xp, _add_in_order(xp, inputs, lambda a, b: a + b))


def _add_in_order(xp, inputs, add):
    """Paddle's CPU AddNKernel order: x0 + x1 when both hold elements, else a zero tensor
    plus each input (so a lone -0 comes out +0: Paddle-made case hb_sum_one_f16), then every
    further non-empty input added in turn."""
    parts = [t for t in inputs if t.size]
    if not parts:
        return xp.zeros((), dtype=inputs[0].dtype)
    if len(inputs) >= 2 and inputs[0].size and inputs[1].size:
        out, rest = add(inputs[0], inputs[1]), parts[2:]
    else:
        out, rest = add(xp.zeros_like(parts[0]), parts[0]), parts[1:]
    for t in rest:
        out = add(out, t)
    return out


@register_kernel("add_n", ("CPU", "GPU"), dtypes=["float16", "bfloat16"])
def add_n_bf16(ctx, inputs: list[Tensor]) -> Tensor:
    """The sum in float16 / bfloat16, each addition converted back as Paddle's CPU does."""
    return _add_in_order(ctx.xp, inputs,
                         lambda a, b: half_op(ctx, lambda u, v: u + v, a, b))


def _align(xp, x, y, axis: int):
    """x and y as the forward kernels align them (legacy axis), for element-wise formulas."""
    if axis == -1 or x.ndim == y.ndim:
        return x, y
    if x.ndim > y.ndim:
        return x, xp.reshape(y, (1,) * axis + tuple(y.shape) + (1,) * (x.ndim - y.ndim - axis))
    return xp.reshape(x, (1,) * axis + tuple(x.shape) + (1,) * (y.ndim - x.ndim - axis)), y


def _full(xp, g, shape):
    return xp.broadcast_to(g, shape)


# -- the formulas: (xp, x, y, out, dout, dtype) -> (dx, dy) on the broadcast shape -------------

def _add(xp, x, y, out, dout, dtype):
    return dout, dout


def _sub(xp, x, y, out, dout, dtype):
    return dout, -dout


def _mul(xp, x, y, out, dout, dtype):
    # MulGradDX/DY: dout * conj(other); on bool the product is a logical and
    if dtype is DataType.BOOL:
        return dout & y, dout & x
    if dtype in COMPLEX:
        return dout * xp.conj(y), dout * xp.conj(x)
    return dout * y, dout * x


def _div(xp, x, y, out, dout, dtype):
    # DivGradDX: dout / y; DivGradDY: -dout * out / y (conjugates for complex)
    if dtype is DataType.BOOL:
        return dout & y, dout & y
    if dtype in INTEGERS:
        return trunc_divide(xp, dout, y), trunc_divide(xp, -dout * out, y)
    if dtype in COMPLEX:
        return dout / xp.conj(y), -dout * xp.conj(out / y)
    return dout / y, -dout * out / y


def _mask(dout, cond):
    # dout * static_cast<T>(cond): NaN/Inf in dout survive only where cond holds (0 * NaN = NaN)
    return dout * cond.astype(dout.dtype)


def _max(xp, x, y, out, dout, dtype):
    return _mask(dout, x > y), _mask(dout, x <= y)


def _min(xp, x, y, out, dout, dtype):
    return _mask(dout, x < y), _mask(dout, x >= y)


def _fmax_backward(xp, x, y, out, dout, dtype):
    take_x = (x >= y) | xp.isnan(y) if dtype not in INTEGERS else x >= y
    return _mask(dout, take_x), _mask(dout, ~take_x)


def _fmin_backward(xp, x, y, out, dout, dtype):
    take_x = (x <= y) | xp.isnan(y) if dtype not in INTEGERS else x <= y
    return _mask(dout, take_x), _mask(dout, ~take_x)


def _heaviside_backward(xp, x, y, out, dout, dtype):
    return dout * dout.dtype.type(0), _mask(dout, x == 0)


def _pow(xp, x, y, out, dout, dtype):
    # PowGradDX: dout * y * pow(x, y - 1); PowGradDY: dout * log(x) * pow(x, y); integers go
    # through std::pow's double and truncate back
    if dtype in INTEGERS:
        f64 = xp.float64
        xd, yd, dd = x.astype(f64), y.astype(f64), dout.astype(f64)
        dx = dd * yd * xp.power(xd, (y - 1).astype(f64))
        dy = dd * xp.log(xd) * xp.power(xd, yd)
        return dx, dy
    return dout * y * xp.power(x, y - 1), dout * xp.log(x) * xp.power(x, y)


def _compute(ctx, fn, x, y, out, dout, axis):
    xp = ctx.xp
    dtype = ctx.data_type(dout)
    a, b = _align(xp, x, y, axis)
    half = dtype in (DataType.FLOAT16, DataType.BFLOAT16)
    if half:
        a, b, dout = (ctx.astype(v, DataType.FLOAT32) for v in (a, b, dout))
        out = None if out is None else ctx.astype(out, DataType.FLOAT32)
    elif out is not None and axis != -1:
        out = xp.reshape(out, dout.shape)
    shape = tuple(dout.shape)
    with quiet(xp):
        dx, dy = fn(xp, a, b, out, dout, dtype)
        dx, dy = _full(xp, dx, shape), _full(xp, dy, shape)
        if dtype in INTEGERS and dx.dtype != dout.dtype:
            dx, dy = float_to_int(ctx, dx, dtype), float_to_int(ctx, dy, dtype)
    if half:
        gx = to_half(ctx, reduce_to(xp, dx, x.shape, axis), dtype)
        gy = to_half(ctx, reduce_to(xp, dy, y.shape, axis), dtype)
        return gx, gy
    return (as_array(xp, reduce_to(xp, dx, x.shape, axis)),
            as_array(xp, reduce_to(xp, dy, y.shape, axis)))


_ADD = ["float32", "float64", "int16", "int32", "int64", "complex64", "complex128"]
_MIN_MAX = ["float32", "float64", "int32", "int64", "bfloat16"]


# Paddle 2.6.2 CPU registrations of the grad kernels (corpus phi_kernels.json)
_WITH_AXIS = {
    "add_grad": (_add, _ADD),
    "subtract_grad": (_sub, [*_ADD, "bfloat16"]),
    "multiply_grad": (_mul, ["float32", "float64", "int32", "int64", "bool", "complex64",
                             "complex128", "bfloat16"]),
}
_NO_AXIS = {
    "maximum_grad": (_max, _MIN_MAX),
    "minimum_grad": (_min, _MIN_MAX),
    "elementwise_pow_grad": (_pow, _MIN_MAX),
    "fmax_grad": (_fmax_backward, _F_I),
    "fmin_grad": (_fmin_backward, _F_I),
    "heaviside_grad": (_heaviside_backward, _F_I),
}


def _register_with_axis(name, fn, dtypes):
    def kernel(ctx, x: Tensor, y: Tensor, out_grad: Tensor, axis: int) -> tuple[Tensor, Tensor]:
        return _compute(ctx, fn, x, y, None, out_grad, axis)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"Gradients of {name[:-5]} summed back to x's and y's shapes."
    register_kernel(name, ("CPU", "GPU"), dtypes=dtypes)(kernel)


def _register_no_axis(name, fn, dtypes):
    def kernel(ctx, x: Tensor, y: Tensor, out_grad: Tensor) -> tuple[Tensor, Tensor]:
        return _compute(ctx, fn, x, y, None, out_grad, -1)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"Gradients of {name[:-5]} summed back to x's and y's shapes."
    register_kernel(name, ("CPU", "GPU"), dtypes=dtypes)(kernel)


for _name, (_fn, _dtypes) in _WITH_AXIS.items():
    _register_with_axis(_name, _fn, _dtypes)
for _name, (_fn, _dtypes) in _NO_AXIS.items():
    _register_no_axis(_name, _fn, _dtypes)


@register_kernel("divide_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "int8", "uint8",
                                                        "int16", "int32", "int64", "bool",
                                                        "complex64", "complex128"])
def divide_grad(ctx, x: Tensor, y: Tensor, out: Tensor, out_grad: Tensor,
                axis: int) -> tuple[Tensor, Tensor]:
    """dx = dout / y, dy = -dout * out / y, summed back to x's and y's shapes."""
    return _compute(ctx, _div, x, y, out, out_grad, axis)


@register_kernel("atan2_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "float16"])
def atan2_grad(ctx, x: Tensor, y: Tensor, out_grad: Tensor) -> tuple[Tensor, Tensor]:
    """dx = dout * y / (x^2 + y^2), dy = -dout * x / (x^2 + y^2)."""
    def fn(xp, a, b, out, dout, dtype):
        den = a * a + b * b
        return dout * b / den, -dout * a / den

    return _compute(ctx, fn, x, y, None, out_grad, -1)
