"""Helpers of the grad kernels: ``grad_kernel`` (register_kernel whose bad inputs raise typed
errors), the scatter-add of a gradient (``sum_into``, ``adjoint``) and the reduction of a
broadcast gradient to its input's shape."""

from __future__ import annotations

import functools

import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray  # noqa: F401 (grad_kernel's wrappers' annotations)
from phi.common.scalar import Scalar  # noqa: F401 (read in this module: typed_errors' wrapper)
from phi.core.errors import InvalidArgument, PhiError
from phi.core.kernel import Int64, Tensor  # noqa: F401 (as IntArray, Scalar)
from phi.core.registry import register_kernel
from phi.kernels.funcs import half_op, owned
from phi.kernels.funcs.elementwise import reduce_to
from phi.kernels.funcs.reduce import half_sum

__all__ = ["adjoint", "grad_kernel", "reduce_grad_to", "sum_into", "typed_errors",
           "zeros_like_grad"]


_HALF = (DataType.FLOAT16, DataType.BFLOAT16)


def typed_errors(where: str, fn):
    """fn with a raw exception from inputs that do not fit together (shapes, indices the
    forward op would have refused) turned into InvalidArgument naming ``where``."""
    @functools.wraps(fn)
    def run(*args):
        try:
            return fn(*args)
        except PhiError:
            raise
        except (ValueError, IndexError, TypeError, KeyError, ZeroDivisionError) as exc:
            raise InvalidArgument(f"{where}: the inputs do not fit this gradient "
                                  f"({type(exc).__name__}: {exc}).") from exc
    return run


def grad_kernel(name: str, *args, **kwargs):
    """register_kernel for a grad kernel whose bad inputs raise typed errors."""
    def decorate(fn):
        return register_kernel(name, *args, **kwargs)(typed_errors(name, fn))
    return decorate


def sum_into(ctx, size: int, positions, values, like):
    """A flat array of ``size`` zeros of like's dtype with ``values`` summed at ``positions``
    (positions < 0 take nothing): the scatter-add of every gradient here."""
    xp = ctx.xp
    dtype = ctx.data_type(like)
    positions = xp.reshape(xp.asarray(positions), (-1,))
    values = xp.reshape(xp.asarray(values), (-1,))
    keep = positions >= 0
    positions, values = positions[keep], values[keep]
    if dtype in _HALF:  # one half addition per element, in order (each truncated back)
        acc = xp.zeros(size, dtype=values.dtype)
        order = np.argsort(positions, kind="stable")
        ranks = np.empty(positions.size, np.int64)
        if positions.size:
            pos_sorted = positions[order]
            starts = np.r_[0, np.flatnonzero(pos_sorted[1:] != pos_sorted[:-1]) + 1]
            first = np.repeat(starts, np.diff(np.r_[starts, positions.size]))
            ranks[order] = np.arange(positions.size) - first
        for r in range(int(ranks.max()) + 1 if positions.size else 0):
            hit = ranks == r  # no position twice in one round
            acc[positions[hit]] = half_op(ctx, lambda a, b: a + b, acc[positions[hit]],
                                          values[hit])
        return acc
    if dtype is DataType.BOOL:
        acc = xp.zeros(size, dtype=np.int64)
        xp.add.at(acc, positions, values.astype(np.int64))
        return acc != 0
    acc = xp.zeros(size, dtype=like.dtype)
    xp.add.at(acc, positions, values)
    return acc


def adjoint(ctx, x_shape, dout, forward):
    """The gradient of a data-movement op: ``forward`` (the op on an array) run on the element
    numbers of an x of ``x_shape`` (-1 marks output elements that come from no element of x),
    dout summed into the elements they name."""
    xp = ctx.xp
    size = int(np.prod(x_shape, dtype=np.int64))
    ids = xp.reshape(xp.arange(size, dtype=np.int64), tuple(x_shape))
    picked = forward(ids)
    return xp.reshape(sum_into(ctx, size, picked, dout, dout), tuple(x_shape))


def reduce_grad_to(ctx, dout, shape):
    """dout summed over the broadcast dims down to ``shape`` (numpy broadcasting rules); half
    types in Eigen's half order, as Paddle's reduce (grad_elementwise.reduce_to otherwise)."""
    xp = ctx.xp
    shape = tuple(shape)
    dtype = ctx.data_type(dout)
    if dtype not in _HALF:
        return owned(xp, reduce_to(xp, dout, shape))
    lead = dout.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(shape)
                                     if d == 1 and dout.shape[lead + i] != 1)
    if not axes:
        return owned(xp, xp.reshape(dout, shape))
    return xp.reshape(half_sum(ctx, dout, axes, True, dtype), shape)


# -- random / fill ops: no gradient reaches x ----------------------------------------------------

def zeros_like_grad(ctx, out_grad):
    return ctx.xp.zeros(out_grad.shape, dtype=out_grad.dtype)
