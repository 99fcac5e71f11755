"""The ``memcpy``, ``memcpy_d2h`` and ``memcpy_h2d`` kernels."""

from __future__ import annotations

from phi.core.errors import InvalidArgument, Unavailable
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import ALL_DTYPES, owned

__all__ = ["memcpy", "memcpy_d2h", "memcpy_h2d"]


_ALL = list(ALL_DTYPES)


@register_kernel("memcpy", "CPU", dtypes=_ALL)
def memcpy(ctx, x: Tensor, dst_place_type: int) -> Tensor:
    """A copy of x at ``dst_place_type`` (0 CPU; on a CPU kernel every place is the host)."""
    if dst_place_type < 0 or dst_place_type > 5:
        raise InvalidArgument(f"memcpy: dst_place_type must be in [0, 5], got {dst_place_type}.")
    return owned(ctx.xp, x)


@register_kernel("memcpy_h2d", "CPU", dtypes=_ALL)
def memcpy_h2d(ctx, x: Tensor, dst_place_type: int) -> Tensor:
    """A copy of x for the device; without one (a CPU run) it stays on the host, as Paddle's
    CPU kernel leaves it."""
    return owned(ctx.xp, x)


@register_kernel("memcpy_d2h", "CPU", dtypes=_ALL)
def memcpy_d2h(ctx, x: Tensor, dst_place_type: int) -> Tensor:
    """A host copy of x: dst_place_type 0 (CPU); 1 (CUDA pinned memory) needs a GPU build,
    and Paddle's CPU run fails on it."""
    if dst_place_type == 1:
        raise Unavailable("memcpy_d2h: dst_place_type 1 (CUDA pinned memory) needs a GPU; "
                          "this run has none (Paddle's CPU kernel leaves the output "
                          "uninitialized and fails).")
    if dst_place_type != 0:
        raise InvalidArgument(f"memcpy_d2h: dst_place_type must be 0 (CPU) or 1 (CUDA pinned), "
                              f"got {dst_place_type}.")
    return owned(ctx.xp, x)
