"""Binary element-wise kernels of helper `binary2`: floor_divide, remainder, fmax, fmin,
heaviside, atan2, bitwise_*, nextafter, grad_add (Paddle's funcs/elementwise_functor.h,
cpu/elementwise_kernel.cc, cpu/bitwise_kernel.cc, cpu/atan2_kernel.cc).

Inputs broadcast numpy-style; the ``_raw`` kernels of legacy programs align the lower-rank
operand at ``axis`` first (``_align``).  Integer results wrap on overflow.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, PreconditionNotMet
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.elementwise import _DIV_ZERO, _align
from phi.kernels.funcs import INTEGERS, as_array, half_op, quiet

__all__: list[str] = []

_HALF = (DataType.FLOAT16, DataType.BFLOAT16)


def _empty_broadcast_check(name: str, x, y) -> None:
    # Paddle 2.6.2's CPU ElementwiseCompute never allocates an empty output when x and y
    # differ in dims (broadcasting): it fails, so a program doing that fails here too
    if (x.size == 0 or y.size == 0) and tuple(x.shape) != tuple(y.shape):
        raise PreconditionNotMet(
            f"{name}: The meta data must be valid when call the mutable data function (Paddle "
            f"2.6.2 cannot broadcast X {list(x.shape)} and Y {list(y.shape)} to an empty "
            "output).")


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
        _empty_broadcast_check(name, x, y)
        return functor(ctx, x, y)

    plain.__name__ = plain.__qualname__ = name
    plain.__doc__ = functor.__doc__
    register_kernel(name, ("CPU", "GPU"), dtypes=dtypes)(plain)
    globals()[name] = plain
    __all__.append(name)
    if raw:
        def raw_fn(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
            _empty_broadcast_check(name, x, y)
            return functor(ctx, *_align(ctx.xp, x, y, axis))

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
    _empty_broadcast_check("nextafter", x, y)
    return as_array(ctx.xp, ctx.xp.nextafter(x, y))


_BITWISE = ["bool", "uint8", "int8", "int16", "int32", "int64"]


@register_kernel("bitwise_and", ("CPU", "GPU"), dtypes=_BITWISE)
def bitwise_and(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x & y (logical and on bool)."""
    _empty_broadcast_check("bitwise_and", x, y)
    return as_array(ctx.xp, ctx.xp.bitwise_and(x, y))


@register_kernel("bitwise_or", ("CPU", "GPU"), dtypes=_BITWISE)
def bitwise_or(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x | y (logical or on bool)."""
    _empty_broadcast_check("bitwise_or", x, y)
    return as_array(ctx.xp, ctx.xp.bitwise_or(x, y))


@register_kernel("bitwise_xor", ("CPU", "GPU"), dtypes=_BITWISE)
def bitwise_xor(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x ^ y (logical xor on bool)."""
    _empty_broadcast_check("bitwise_xor", x, y)
    return as_array(ctx.xp, ctx.xp.bitwise_xor(x, y))


@register_kernel("bitwise_not", ("CPU", "GPU"), dtypes=_BITWISE)
def bitwise_not(ctx, x: Tensor) -> Tensor:
    """~x (logical not on bool)."""
    return as_array(ctx.xp, ctx.xp.invert(x))


__all__ += ["atan2", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "nextafter"]
