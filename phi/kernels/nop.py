"""The ``nop`` kernel."""

from __future__ import annotations

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["nop"]


@register_kernel("nop", "CPU", dtypes=["float32"])
def nop(ctx, x: list[Tensor]) -> list[Tensor]:
    """Nothing: a dependency marker; Out is left as it is (uninitialized), as in Paddle."""
    return None
