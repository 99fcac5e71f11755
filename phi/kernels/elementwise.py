"""Element-wise binary kernels with broadcasting (Paddle's paddle/phi/kernels/cpu/elementwise*.cc,
funcs/elementwise_functor.h, funcs/elementwise_base.h).

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
from phi.kernels.funcs import INTEGERS, as_array, bf16_op, half_op, quiet, trunc_divide

__all__ = ["add", "divide", "maximum", "minimum", "multiply", "subtract"]

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


# -- the legacy `_raw` kernels: elementwise ops of legacy programs with an `axis` -----------------
# elementwise_add(axis != -1) maps to add_raw etc. (Paddle 2.6.2 keeps them for old programs):
# the lower-rank operand is aligned to the other starting at `axis`.

def _align(xp, x, y, axis: int):
    if axis == -1 or x.ndim == y.ndim:
        return x, y
    if x.ndim > y.ndim:
        pad = x.ndim - y.ndim - axis
        return x, xp.reshape(y, (1,) * axis + tuple(y.shape) + (1,) * pad)
    pad = y.ndim - x.ndim - axis
    return xp.reshape(x, (1,) * axis + tuple(x.shape) + (1,) * pad), y


@register_kernel("add_raw", ("CPU", "GPU"), dtypes=_without_bf16(ADD_DTYPES))
def add_raw(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """x + y with legacy axis alignment."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = _align(ctx.xp, x, y, axis)
    return ctx.xp.asarray(a + b)


@register_kernel("subtract_raw", ("CPU", "GPU"), dtypes=_without_bf16(SUBTRACT_DTYPES))
def subtract_raw(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """x - y with legacy axis alignment."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = _align(ctx.xp, x, y, axis)
    return ctx.xp.asarray(a - b)


@register_kernel("subtract_raw", ("CPU", "GPU"), dtypes=["bfloat16"])
def subtract_raw_bf16(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """x - y with legacy axis alignment, in bfloat16."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = _align(ctx.xp, x, y, axis)
    return bf16_op(ctx, lambda u, v: u - v, a, b)


@register_kernel("multiply_raw", ("CPU", "GPU"), dtypes=_without_bf16(MULTIPLY_DTYPES))
def multiply_raw(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """x * y with legacy axis alignment."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = _align(ctx.xp, x, y, axis)
    return ctx.xp.asarray(a * b)


@register_kernel("multiply_raw", ("CPU", "GPU"), dtypes=["bfloat16"])
def multiply_raw_bf16(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """x * y with legacy axis alignment, in bfloat16."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = _align(ctx.xp, x, y, axis)
    return bf16_op(ctx, lambda u, v: u * v, a, b)


# Paddle 2.6.2 registers divide_raw for fewer dtypes than divide (no int8/uint8/int16)
@register_kernel("divide_raw", ("CPU", "GPU"), dtypes=["float32", "float64", "int32", "int64",
                                                       "bool", "complex64", "complex128"])
def divide_raw(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """x / y with legacy axis alignment (integer semantics as ``divide``)."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = _align(ctx.xp, x, y, axis)
    return divide(ctx, a, b)


@register_kernel("maximum_raw", ("CPU", "GPU"), dtypes=MIN_MAX_DTYPES)
def maximum_raw(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """MaximumFunctor with legacy axis alignment (operands ordered by their original ranks)."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = _ordered(*_align(ctx.xp, x, y, axis)) if x.ndim >= y.ndim else _align(
        ctx.xp, y, x, axis)
    return as_array(ctx.xp, ctx.xp.where(a > b, a, b))


@register_kernel("minimum_raw", ("CPU", "GPU"), dtypes=MIN_MAX_DTYPES)
def minimum_raw(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """MinimumFunctor with legacy axis alignment (operands ordered by their original ranks)."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = _ordered(*_align(ctx.xp, x, y, axis)) if x.ndim >= y.ndim else _align(
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


__all__ += [
    "add_raw",
    "divide_raw",
    "elementwise_pow",
    "maximum_raw",
    "minimum_raw",
    "multiply_raw",
    "subtract_raw",
]


@register_kernel("elementwise_pow_raw", ("CPU", "GPU"), dtypes=["float32", "float64", "int32",
                                                                "int64", "bfloat16"])
def elementwise_pow_raw(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """x ** y with legacy axis alignment (integer semantics as ``elementwise_pow``; bfloat16
    as ``elementwise_pow_bf16``: Paddle registers it, a legacy pow with an axis runs it)."""
    if not (x.size and y.size):
        _empty_check(x, y)
    a, b = _align(ctx.xp, x, y, axis)
    if ctx.data_type(x) is DataType.BFLOAT16:
        return elementwise_pow_bf16(ctx, a, b)
    return elementwise_pow(ctx, a, b)


__all__ += ["elementwise_pow_raw"]


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


__all__ += ["add_n", "add_n_bf16"]
