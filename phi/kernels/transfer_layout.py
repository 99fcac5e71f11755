"""The ``transfer_layout`` kernel."""

from __future__ import annotations



from phi.common.layout import DataLayout
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import transfer_layout_axes
from phi.kernels.funcs import owned
from phi.kernels.funcs.manipulation import TRANSFER_LAYOUT_DTYPES

__all__ = ["transfer_layout"]


# -- layout and channel shuffles ---------------------------------------------------------------

@register_kernel("transfer_layout", ("CPU", "GPU"), dtypes=TRANSFER_LAYOUT_DTYPES)
def transfer_layout(ctx, x: Tensor, src_layout: int, dst_layout: int) -> Tensor:
    """x copied, or permuted between NCHW and NHWC (x's layout is NCHW, every fed tensor's)."""
    axes = transfer_layout_axes(DataLayout.NCHW, src_layout, dst_layout)
    if axes is None:
        return owned(ctx.xp, x)
    if x.ndim != 4:
        raise InvalidArgument(f"transfer_layout: a layout transform needs a 4-D tensor, but "
                              f"received rank {x.ndim}.")
    return owned(ctx.xp, ctx.xp.permute_dims(x, axes))
