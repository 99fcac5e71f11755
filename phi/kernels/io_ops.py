"""Phi kernels of issue 12's control ops: memcpy, memcpy_d2h, memcpy_h2d (a transfer between
places: on this CPU build every destination is the host), nop and share_buffer (Paddle's
paddle/phi/kernels/{memcpy,nop,share_buffer}_kernel.cc)."""

from __future__ import annotations

from phi.core.errors import InvalidArgument, Unavailable
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import ALL_DTYPES, owned

__all__ = ["memcpy", "memcpy_d2h", "memcpy_h2d", "nop", "share_buffer"]

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


@register_kernel("nop", "CPU", dtypes=["float32"])
def nop(ctx, x: list[Tensor]) -> list[Tensor]:
    """Nothing: a dependency marker; Out is left as it is (uninitialized), as in Paddle."""
    return None


@register_kernel("share_buffer", "CPU", dtypes=_ALL)
def share_buffer(ctx, x: list[Tensor], share_dims_and_dtype: list[bool]
                 ) -> tuple[list[Tensor], list[Tensor]]:
    """Out[i] holds X[i]'s data (this bridge never reuses buffers: a share is a reference to
    the same array).  XOut is X's own variable in the programs that use the op; a separate
    XOut variable is left as it is, as Paddle leaves it."""
    if share_dims_and_dtype and len(share_dims_and_dtype) != len(x):
        raise InvalidArgument(f"share_buffer: share_dims_and_dtype has "
                              f"{len(share_dims_and_dtype)} values for {len(x)} inputs.")
    return list(x), None
