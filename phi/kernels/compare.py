"""Compare kernels: less_than ... not_equal, their legacy ``_raw`` forms and equal_all (Paddle's
paddle/phi/kernels/cpu/compare_kernel.cc, impl/compare_kernel_impl.h, funcs/compare_functors.h).

Outputs are bool.  Inputs broadcast numpy-style; the ``_raw`` kernels of legacy programs first
align the lower-rank operand at ``axis`` (CompareRawInferMeta ignores ``axis`` and aligns
trailing dims, so an ``axis`` that disagrees fails there before a kernel runs).
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import FLOATS, as_array, quiet
from phi.kernels.funcs.elementwise import align_axis

__all__ = ["equal", "equal_all", "equal_raw", "greater_equal", "greater_equal_raw", "greater_than",
           "greater_than_raw", "less_equal", "less_equal_raw", "less_than", "less_than_raw",
           "not_equal", "not_equal_raw"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json): the same list for all twelve
COMPARE_DTYPES = ["bool", "int16", "int32", "int64", "float32", "float64", "uint8", "int8",
                  "float16", "bfloat16"]
_BOOL_OUT = {0: {"dtype": DataType.BOOL}}
# std::is_floating_point holds for float and double only (not phi's float16 / bfloat16)
_EPS_EQUAL = (DataType.FLOAT32, DataType.FLOAT64)


def _equal(ctx, x, y):
    """EqualFunctor: floats are equal when |a - b| < 1e-8 (a - b in their own type), infinities
    only when a == b, NaN never; other types compare exactly."""
    xp = ctx.xp
    if ctx.data_type(x) in _EPS_EQUAL:
        with quiet(xp):
            return as_array(xp, (x == y) | (xp.abs(x - y) < 1e-8))
    return as_array(xp, x == y)


def _less_than(ctx, x, y):
    return as_array(ctx.xp, x < y)


def _less_equal(ctx, x, y):
    return as_array(ctx.xp, x <= y)


def _greater_than(ctx, x, y):
    return as_array(ctx.xp, x > y)


def _greater_equal(ctx, x, y):
    return as_array(ctx.xp, x >= y)


def _not_equal(ctx, x, y):
    return as_array(ctx.xp, ~_equal(ctx, x, y))


def _check_broadcast(name: str, a, b) -> None:
    # the compile-time check aligned trailing dims; an `axis` alignment that does not broadcast
    # fails in Paddle's kernel (elementwise_utils.h) with InvalidArgument, not a crash
    try:
        np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    except ValueError:
        raise InvalidArgument(
            f"{name}: Broadcast dimension mismatch. Operands could not be broadcast together "
            f"with the shape of X = {list(a.shape)} and the shape of Y = {list(b.shape)} "
            "(aligned at `axis`).") from None


def _register(name: str, functor, doc: str):
    """Register kernel ``name`` and ``<name>_raw`` computing ``functor``; returns both."""
    def plain(ctx, x: Tensor, y: Tensor) -> Tensor:
        return functor(ctx, x, y)

    def raw(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
        a, b = align_axis(ctx.xp, x, y, axis)
        _check_broadcast(name, a, b)
        return functor(ctx, a, b)

    plain.__name__ = plain.__qualname__ = name
    raw.__name__ = raw.__qualname__ = f"{name}_raw"
    plain.__doc__ = doc
    raw.__doc__ = f"{doc[:-1]}, with legacy axis alignment."
    return (register_kernel(name, ("CPU", "GPU"), dtypes=COMPARE_DTYPES,
                            output_defs=_BOOL_OUT)(plain),
            register_kernel(f"{name}_raw", ("CPU", "GPU"), dtypes=COMPARE_DTYPES,
                            output_defs=_BOOL_OUT)(raw))


_NAN_FALSE = " (false where either is NaN)."
less_than, less_than_raw = _register("less_than", _less_than, "x < y" + _NAN_FALSE)
less_equal, less_equal_raw = _register("less_equal", _less_equal, "x <= y" + _NAN_FALSE)
greater_than, greater_than_raw = _register("greater_than", _greater_than, "x > y" + _NAN_FALSE)
greater_equal, greater_equal_raw = _register("greater_equal", _greater_equal,
                                             "x >= y" + _NAN_FALSE)
equal, equal_raw = _register("equal", _equal, "x == y, floats within 1e-8 (EqualFunctor).")
not_equal, not_equal_raw = _register("not_equal", _not_equal,
                                     "not equal(x, y): true where either is NaN.")


@register_kernel("equal_all", ("CPU", "GPU"), dtypes=["bool", "int32", "int64", "float32",
                                                      "float64"], output_defs=_BOOL_OUT)
def equal_all(ctx, x: Tensor, y: Tensor) -> Tensor:
    """False when the dims differ, else every element equal (floats within 1e-8, NaN never)."""
    xp = ctx.xp
    if tuple(x.shape) != tuple(y.shape):
        return xp.asarray(False)
    with quiet(xp):
        eq = (x == y) | (xp.abs(x - y) < 1e-8) if ctx.data_type(x) in FLOATS else x == y
    return as_array(xp, xp.all(eq))
