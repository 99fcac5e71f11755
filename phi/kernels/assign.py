"""The assign kernel (Paddle's paddle/phi/kernels/assign_kernel.cc): a copy of the input."""

from __future__ import annotations

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import ALL_DTYPES, owned

__all__ = ["assign_raw"]

_ALL12 = list(ALL_DTYPES)


# Paddle registers x as ALL_BACKEND (its kernel copies from any place); here kernels compute
# with their own device's namespace, so x is moved to the kernel's device like any input.
@register_kernel("assign_raw", ("CPU", "GPU"), dtypes=_ALL12)
def assign_raw(ctx, x: Tensor) -> Tensor:
    """A copy of x (never a view)."""
    return owned(ctx.xp, x)
