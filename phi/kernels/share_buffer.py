"""The ``share_buffer`` kernel."""

from __future__ import annotations

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import ALL_DTYPES

__all__ = ["share_buffer"]


_ALL = list(ALL_DTYPES)


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
