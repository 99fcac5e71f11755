"""Bound kernels: a kernel's per-call preparation done once for one op's constant attributes.

A kernel is called as ``fn(ctx, *tensors, *attrs)`` and converts its attributes on every call
(a Scalar's value to a numpy scalar of x's dtype, a perm list to a tuple, ...).  For a tiny
tensor that work costs as much as the arithmetic.  A kernel function may carry a *binder*
(``@binds(kernel_fn)``): ``binder(ctx, attrs, metas)`` gets the device context, the op's
attribute values (as the kernel receives them) and, per tensor input, the (DataType, dims) the
op was planned with (None for an absent optional input or a list input) and returns a callable
``bound(*tensors)``, or None where it has nothing to gain (other backends, dtypes it does not
know).

The contract: ``bound(*tensors)`` returns exactly what ``fn(ctx, *tensors, *attrs)`` returns,
bit for bit, for every input.  A bound form therefore checks the case it prepared for (numpy
arrays of the dtypes, or dims, it was bound to) and calls ``fn`` itself otherwise; it is the
same kernel with its argument conversion hoisted, so dispatch records (explain, shadow, the
runners' counters) name ``fn``'s kernel.

Compiled segments (fluid_compat.operators.segments) call the bound forms when they generate a
stretch's code.  ``FLAGS_kernel_bind=0`` calls every kernel with its attributes again (segments
generated before the change re-generate on their next call: ``epoch``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from phi import flags
from phi.core.errors import PhiError

__all__ = ["BIND_FLAG", "bind", "binds", "epoch"]

BIND_FLAG = "FLAGS_kernel_bind"
flags.define_flag(BIND_FLAG, bool, True, "Compiled segments call kernels bound once to their "
                  "op's attributes (phi.core.bound) instead of converting them on every call.")

_EPOCH = [0]  # bumped when the flag changes: generated code holding bound forms is stale


def _on_flag(name: str, value: object) -> None:
    if name == BIND_FLAG:
        _EPOCH[0] += 1


flags.on_change(_on_flag)


def epoch() -> int:
    """Changes whenever FLAGS_kernel_bind does (code that holds bound forms re-generates)."""
    return _EPOCH[0]


def binds(kernel_fn: Callable) -> Callable[[Callable], Callable]:
    """Decorator: the decorated function is ``kernel_fn``'s binder (module doc)."""

    def decorate(binder: Callable) -> Callable:
        kernel_fn.binder = binder
        return binder

    return decorate


def bind(fn: Callable, ctx, attrs: Sequence, metas: Sequence) -> Callable | None:
    """``fn``'s bound form for these attributes and inputs' (DataType, dims), or None (no
    binder, the flag off, an attribute read from tensors, or the binder declines)."""
    binder = getattr(fn, "binder", None)
    if binder is None or not flags.FLAGS[BIND_FLAG]:
        return None
    if any(getattr(a, "from_tensor", False) for a in attrs):
        # an IntArray / Scalar read from tensors (ShapeTensor, a VAR / VARS attribute) may
        # change from run to run with the same input shapes: never bound to one value
        return None
    try:
        return binder(ctx, tuple(attrs), tuple(metas))
    except PhiError:  # attributes that do not fit the planned dims: the kernel raises at the call
        return None
